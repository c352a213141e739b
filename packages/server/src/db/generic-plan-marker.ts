/**
 * The comment that opens a statement written to be planned once for any values (`genericPlan`):
 * the embedded statement cache runs such a statement with generic plans forced.
 */
export const genericPlanMarker = "/* generic plan */";
