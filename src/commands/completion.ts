// Placeholder: filled in by its issue's work.
import type { ModuleSpec } from '../resources/types.js';

export const module: ModuleSpec = { name: 'completion', commands: [] };
