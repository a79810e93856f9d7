// Placeholder: the texts are written by the scripting work.
export const helpTopics: Record<string, { summary: string; text: string }> = {};
