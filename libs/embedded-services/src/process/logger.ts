/** The one thing embedded services need from a logger; Nest's Logger and the CLI's stderr writer both fit. */
export interface ServiceLog {
  log(message: string): void;
}

export const stderrLog: ServiceLog = { log: (message) => process.stderr.write(`${message}\n`) };
export const silentLog: ServiceLog = { log: () => undefined };
