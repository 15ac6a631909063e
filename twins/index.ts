import { PackRegistry } from '@libs/twin-engine';

import { emailPack } from './email';
import { procurementPack } from './procurement';
import { slackPack } from './slack';

/** The twin packs Mirror ships, by the name a stack's `mirror.yaml` gives as `pack:`. */
export const builtInPacks: PackRegistry = new Map(
  [slackPack, emailPack, procurementPack].map((pack) => [pack.name, pack]),
);
