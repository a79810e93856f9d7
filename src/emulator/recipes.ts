// Backup recipes the emulator knows: the interface leaves the id -> recipe
// mapping open, so these follow the config keys the interface has seen.

export type ConfigFieldType = 'text' | 'textarea' | 'number' | 'checkbox';

export interface ConfigField {
  key: string;
  label: string;
  type: ConfigFieldType;
  default?: string | number | boolean;
  min?: number;
  max?: number;
  /** Shown masked once set. */
  secret?: boolean;
}

export interface Recipe {
  id: number;
  slug: string;
  /** What the backup files of this recipe are called, before the date stamp. */
  fileSuffix: string;
  config: readonly ConfigField[];
}

const compression: readonly ConfigField[] = [
  { key: 'use_compression', label: 'Use compression', type: 'checkbox', default: true },
  { key: 'compression_level', label: 'Compression level', type: 'number', default: 6, min: 0, max: 9 },
  { key: 'backup_storage_folder', label: 'Backup storage folder', type: 'text' },
];

export const RECIPES: readonly Recipe[] = [
  {
    id: 1,
    slug: 'files',
    fileSuffix: '.tar.gz',
    config: [
      { key: 'root_path', label: 'Root path', type: 'text', default: '/var/www' },
      { key: 'exclude', label: 'Exclude', type: 'textarea' },
      { key: 'use_sudo', label: 'Use sudo', type: 'checkbox', default: false },
      ...compression,
    ],
  },
  {
    id: 2,
    slug: 'mysql',
    fileSuffix: '.sql.gz',
    config: [
      { key: 'mysql_host', label: 'MySQL host', type: 'text', default: '127.0.0.1' },
      { key: 'mysql_port', label: 'MySQL port', type: 'number', default: 3306, min: 1, max: 65535 },
      { key: 'mysql_username', label: 'MySQL username', type: 'text' },
      { key: 'mysql_password', label: 'MySQL password', type: 'text', secret: true },
      { key: 'mysql_database', label: 'MySQL database', type: 'text' },
      ...compression,
    ],
  },
  {
    id: 3,
    slug: 'postgresql',
    fileSuffix: '.sql.gz',
    config: [
      { key: 'postgres_host', label: 'PostgreSQL host', type: 'text', default: '127.0.0.1' },
      { key: 'postgres_port', label: 'PostgreSQL port', type: 'number', default: 5432, min: 1, max: 65535 },
      { key: 'postgres_username', label: 'PostgreSQL username', type: 'text' },
      { key: 'postgres_password', label: 'PostgreSQL password', type: 'text', secret: true },
      { key: 'postgres_database', label: 'PostgreSQL database', type: 'text' },
      ...compression,
    ],
  },
  {
    id: 4,
    slug: 'mongodb',
    fileSuffix: '.archive.gz',
    config: [
      { key: 'mongodb_uri', label: 'MongoDB connection string', type: 'text', secret: true },
      { key: 'mongodb_database', label: 'MongoDB database', type: 'text' },
      ...compression,
    ],
  },
  {
    id: 5,
    slug: 'website',
    fileSuffix: '.zip',
    config: [
      { key: 'url', label: 'Website URL', type: 'text' },
      { key: 'exclude', label: 'Exclude', type: 'textarea' },
      ...compression,
    ],
  },
];

export function recipeById(id: number): Recipe | undefined {
  return RECIPES.find((r) => r.id === id);
}

export const NOT_SET = '**not set**';

/**
 * A config value as the service shows it: strings, except numbers; checkboxes as
 * "True"/"False"; unset text as "**not set**"; secrets masked.
 */
export function displayConfigValue(field: ConfigField, value: string | number | boolean | undefined): string | number {
  const v = value ?? field.default;
  switch (field.type) {
    case 'checkbox':
      return v === true || v === 'True' || v === 'true' || v === 1 || v === '1' ? 'True' : 'False';
    case 'number':
      return v === undefined || v === '' ? NOT_SET : Number(v);
    default:
      if (v === undefined || v === '') return NOT_SET;
      return field.secret ? '********' : String(v);
  }
}
