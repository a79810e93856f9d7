// Types of demo-story.mjs, for the tests that check the tour's commentary.
import type { StatusDocument } from '../status/document.js';

export function ageWords(seconds: number): string;
export function statusStory(doc: StatusDocument): string;
export function checkStory(doc: StatusDocument): string;
export function checkRefuses(doc: StatusDocument): Array<{ label: string; health: string }>;
export function reportStory(doc: import('../report/document.js').ReportDocument): string;
export function verifyStory(doc: import('../verify/document.js').VerifyDocument, health?: string): string;
export function restoreStory(doc: import('../restore/document.js').RestoreDocument): string;
