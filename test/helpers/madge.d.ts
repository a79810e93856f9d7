// The part of madge's API test/unit/layers.test.ts uses (madge ships no types).
declare module 'madge' {
  interface MadgeResult {
    /** Each file (relative to the folder given) and the files it imports. */
    obj(): Record<string, string[]>;
    /** Each import circle as its files in order. */
    circular(): string[][];
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string, config?: { fileExtensions?: string[]; tsConfig?: string }): Promise<MadgeResult>;
}
