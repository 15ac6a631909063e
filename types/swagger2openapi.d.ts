declare module 'swagger2openapi' {
  interface ConvertOptions {
    patch?: boolean;
    warnOnly?: boolean;
    resolve?: boolean;
    direct?: boolean;
  }
  interface ConvertResult {
    openapi: Record<string, unknown>;
  }
  export function convertObj(swagger: unknown, options: ConvertOptions): Promise<ConvertResult>;
}
