// Moved to src/fleet/calls.ts (issue 25 §17): what status and report share.
export * from '../fleet/calls.js';
