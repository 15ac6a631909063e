import { PackRegistry } from '@libs/twin-engine';

import { slackPack } from './slack';

/** The twin packs Mirror ships, by the name a stack's `mirror.yaml` gives as `pack:`. */
export const builtInPacks: PackRegistry = new Map([[slackPack.name, slackPack]]);
