// Snapshot schedules of cloud_i block volumes: the droplet verbs, with UUID
// ids and without host or secondary region (see cloud-i.ts).
import { cloudIModule } from './cloud-i.js';

const volumes = cloudIModule({
  plural: 'volumes',
  singular: 'volume',
  idType: 'uuid',
  exampleId: '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c',
  sort: ['id', 'name', 'size', 'created_at'],
  host: false,
  secondaryRegion: false,
});

export const { module, schemas, columns, handlers } = volumes;
