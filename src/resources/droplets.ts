// Snapshot schedules of cloud_i droplets (virtual machines); the description
// shared with volumes lives in cloud-i.ts.
import { cloudIModule } from './cloud-i.js';

const droplets = cloudIModule({
  plural: 'droplets',
  singular: 'droplet',
  idType: 'integer',
  exampleId: '301234567',
  sort: ['id', 'name', 'host', 'size', 'created_at'],
  host: true,
  secondaryRegion: true,
});

export const { module, schemas, columns, handlers } = droplets;
