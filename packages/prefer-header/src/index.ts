export {
  type GetPreferencesOptions,
  getPreferences,
  PREFER_QUERY_PARAMETER,
} from './get-preferences.js';
export { appendPreferenceApplied } from './header-values.js';
export {
  MAX_DELTA_SECONDS,
  type ParsePreferOptions,
  PREFER_MAX_LENGTH,
  type Preference,
  type Preferences,
  parsePrefer,
} from './parse-prefer.js';
export { type PreferHeaderOptions, preferHeader } from './prefer-header.js';
export {
  type PreferredOperation,
  type SendPreferredOptions,
  sendPreferred,
} from './send-preferred.js';
