/**
 * Something in the HubSpot data that was left out, or taken with a stated default. `id` is the
 * HubSpot id of the object (deal, owner, pipeline or stage); `reason` starts with the object kind
 * and says what was done, e.g. `deal has no stage; left out of every metric`.
 */
export interface SkippedItem {
  id: string;
  reason: string;
}
