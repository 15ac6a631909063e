import type { EpisodeProtocolMount } from '@libs/episode-api';
import { mountEpisodeProtocols } from '@libs/episode-protocols';

/**
 * The protocol adapters `mirror up` serves beside the episode API (MCP per episode, the OpenEnv façade), each given
 * the live-episode registry as its EpisodeLifecyclePort. An adapter adds its mount here.
 */
export const episodeProtocols: EpisodeProtocolMount[] = [(app, port, admit) => mountEpisodeProtocols(app, port, admit)];
