/**
 * The image a Dockerfile's final stage is built on. A base image "changed" by adding a stage in
 * front (`FROM node:20-alpine AS base` above the old `FROM node:18`) changes nothing the built
 * image runs on: the last stage is the image, and it still starts from the old one.
 */

/** Dockerfiles by name. */
export const DOCKERFILE = /(?:^|\/)(?:Dockerfile|Containerfile)(?:\.[\w.-]+)?$|\.dockerfile$/i;

/** The stages of a Dockerfile: each `FROM` image and its `AS` name, in order. */
export function dockerStages(text: string): { image: string; name?: string }[] {
  const stages: { image: string; name?: string }[] = [];
  for (const match of text.matchAll(/^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?\s*$/gim)) {
    stages.push({ image: match[1] ?? '', ...(match[2] ? { name: match[2].toLowerCase() } : {}) });
  }
  return stages;
}

/**
 * The images the final stage rests on, following stage names (`FROM base` → the `base` stage's
 * image), last stage first.
 */
export function finalImages(text: string): string[] {
  const stages = dockerStages(text);
  const images: string[] = [];
  let stage = stages[stages.length - 1];
  const seen = new Set<number>();
  while (stage !== undefined) {
    images.push(stage.image);
    const index = stages.findIndex((item) => item.name === stage?.image.toLowerCase());
    if (index === -1 || seen.has(index)) break;
    seen.add(index);
    stage = stages[index];
  }
  return images;
}

/**
 * The image a request asks the Dockerfile to be based on ("Change the base image to
 * node:20-alpine", "use python:3.12-slim as the base image"), unless it names a stage other than
 * the final one ("the build stage", "the builder").
 */
export function askedBaseImage(description: string): string | undefined {
  if (!/\b(?:base\s+image|image|FROM)\b/i.test(description)) return undefined;
  if (/\b(?:build(?:er)?\s+stage|builder|first\s+stage|stage\s+\w+)\b/i.test(description)) return undefined;
  return /(?<![\w./-])((?:[\w.-]+\/)*[a-z0-9][\w.-]*:[\w][\w.-]*)(?![\w./-])/i.exec(description)?.[1];
}
