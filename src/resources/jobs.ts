// Placeholder: filled in by the every-endpoint work.
import type { ModuleSpec } from './types.js';

export const module: ModuleSpec = { name: 'jobs', commands: [] };
