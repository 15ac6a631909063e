import { convertObj } from 'swagger2openapi';

import { IngestionError } from '@libs/bundle-documents';

/**
 * Swagger 2.0 becomes OpenAPI 3.0 with swagger2openapi, the converter most vendor toolchains use. It runs on the
 * already-bundled document, so it never resolves references or touches the network itself; `patch` lets it repair
 * the small defects real specs carry instead of refusing them (problems we can locate are warned about beforehand).
 */
export const convertSwagger = async (
  file: string,
  document: Record<string, unknown>,
): Promise<Record<string, unknown>> => {
  try {
    // swagger2openapi mutates its input; the bundled document still serves to locate problems afterwards.
    const { openapi } = await convertObj(structuredClone(document), {
      patch: true,
      warnOnly: true,
      resolve: false,
      direct: false,
    });
    return openapi;
  } catch (error) {
    throw IngestionError.single('SPECIFICATION_INVALID', {
      file,
      pointer: '',
      message: `Swagger 2.0 document cannot be converted: ${(error as Error).message}`,
    });
  }
};
