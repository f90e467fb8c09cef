import packageJson from '../package.json' with { type: 'json' };

/** The version of the closedloop CLI and web UI (`closedloop --version`). */
export const version: string = packageJson.version;
