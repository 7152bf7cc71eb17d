export {
  type ApplicationPrototypeKind,
  outermostApplicationPrototype,
} from './application-prototype.js';
export { beforeHeaders, type HeadListener } from './before-headers.js';
export { type ObjectSlot, objectSlot } from './object-slot.js';
export { shareShape } from './shared-shape.js';
