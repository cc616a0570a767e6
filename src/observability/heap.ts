/**
 * How far the heap may grow between full garbage collections (HEAP_GROWTH_PERCENT).
 *
 * V8 sets the next full collection's threshold by multiplying what the last one kept by a factor it
 * derives from the heap's maximum size: on a host with more than about 2 GiB of memory that factor
 * may reach 4. Just after start-up the service keeps little, so under sustained load the old space
 * then filled with promoted garbage to about four times that before the first full collection: in the
 * PostgreSQL soak RSS climbed well above its plateau in the first minute and fell back at that
 * collection. A fixed factor of 1.5 keeps RSS close to its plateau, for more frequent full collections
 * of mostly incremental work (docs/performance.md#decisions).
 *
 * The factor is read at every collection, so setting it once at start-up takes effect (measured:
 * the soak's threshold followed it); the heap's maximum size, by contrast, is fixed when the process
 * starts and ignores run-time flags.
 */
import v8 from 'node:v8';

/** Applies the growth factor; 0 leaves V8's own policy in place. */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
