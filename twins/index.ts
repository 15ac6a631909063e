import { PackRegistry } from '@libs/twin-engine';

import { emailPack } from './email';
import { slackPack } from './slack';

/** The twin packs Mirror ships, by the name a stack's `mirror.yaml` gives as `pack:`. */
export const builtInPacks: PackRegistry = new Map([slackPack, emailPack].map((pack) => [pack.name, pack]));
