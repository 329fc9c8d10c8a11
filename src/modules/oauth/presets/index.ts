import { githubPreset } from './github.js';
import { googlePreset } from './google.js';
import { linearPreset } from './linear.js';
import { notionPreset } from './notion.js';
import { oidcPreset } from './oidc.js';
import type { Preset } from './preset.js';
import { slackPreset } from './slack.js';

export type { AccountIdentity, Preset } from './preset.js';

const PRESETS: ReadonlyMap<string, Preset> = new Map(
  [githubPreset, googlePreset, slackPreset, notionPreset, linearPreset, oidcPreset].map((preset) => [
    preset.key,
    preset,
  ]),
);

export const PRESET_KEYS = [...PRESETS.keys()];

/** Every preset, in the catalogue's order. */
export const allPresets = (): Preset[] => [...PRESETS.values()];

export const findPreset = (key: string): Preset | undefined => PRESETS.get(key);

/** A preset as people know it (GitHub, not `github`), for messages; an unknown key as it is. */
export const presetName = (key: string): string => PRESETS.get(key)?.name ?? key;
