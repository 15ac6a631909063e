import { useConfiguredLogger } from '@libs/telemetry';

/**
 * Every Nest `Logger` of a CLI process (the episode API and review routes `mirror up` serves, their error filters, the
 * live-episode registry) writes through the redacting logger, in the format the settings ask for: an error quoting a
 * tool call's arguments or a message's body reaches the terminal with markers, as it would from the api app.
 */
export const useRedactingLogs = (): void => {
  useConfiguredLogger({ MIRROR_LOG_FORMAT: process.env.MIRROR_LOG_FORMAT === 'json' ? 'json' : 'text' });
};
