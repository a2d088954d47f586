/**
 * Small helpers shared by the demo pages: DOM lookup, a seeded random source,
 * a HiDPI canvas, smoothed live figures and the read-only hook the e2e test reads.
 */

/** The element with this id, or an Error naming the id (a page and its HTML disagree). */
export function byId<E extends HTMLElement = HTMLElement>(id: string): E {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`demo: no element with id "${id}"`);
  return element as E;
}

/** Seeded uniform random numbers in [0, 1) (mulberry32): every visit starts from the same scene. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A canvas whose backing store follows its CSS size times the device pixel ratio. */
export interface Surface {
  readonly canvas: HTMLCanvasElement;
  readonly context: CanvasRenderingContext2D;
  /** Size in CSS pixels, the unit the pages simulate and query in. */
  width: number;
  height: number;
  /** Backing-store pixels per CSS pixel. */
  pixelRatio: number;
}

/**
 * Sizes the canvas to its layout box and keeps it sized; `onResize` runs after
 * every size change (and once now). The context is scaled so pages draw in CSS pixels.
 */
export function createSurface(canvas: HTMLCanvasElement, onResize: (surface: Surface) => void): Surface {
  const context = canvas.getContext('2d');
  if (context === null) throw new Error('demo: this browser has no 2D canvas');
  const surface: Surface = { canvas, context, width: 0, height: 0, pixelRatio: 1 };
  const resize = (): void => {
    const box = canvas.getBoundingClientRect();
    const width = Math.max(1, Math.round(box.width));
    const height = Math.max(1, Math.round(box.height));
    const pixelRatio = Math.min(2, window.devicePixelRatio || 1);
    if (width === surface.width && height === surface.height && pixelRatio === surface.pixelRatio) return;
    surface.width = width;
    surface.height = height;
    surface.pixelRatio = pixelRatio;
    canvas.width = Math.round(width * pixelRatio);
    canvas.height = Math.round(height * pixelRatio);
    context.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0);
    onResize(surface);
  };
  resize();
  new ResizeObserver(resize).observe(canvas);
  return surface;
}

/** Exponential moving average: live figures that are readable instead of flickering every frame. */
export class Smoothed {
  value = Number.NaN;
  constructor(private readonly weight = 0.1) {}
  add(sample: number): number {
    this.value = Number.isNaN(this.value) ? sample : this.value + (sample - this.value) * this.weight;
    return this.value;
  }
  reset(): void {
    this.value = Number.NaN;
  }
}

/** Frames per second measured from requestAnimationFrame timestamps. */
export class FrameRate {
  private last = Number.NaN;
  private readonly interval = new Smoothed(0.05);
  tick(now: number): void {
    if (!Number.isNaN(this.last)) this.interval.add(Math.min(1000, now - this.last));
    this.last = now;
  }
  get fps(): number {
    return this.interval.value > 0 ? 1000 / this.interval.value : 0;
  }
}

const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 12345.6 -> "12,346". */
export function formatInteger(value: number): string {
  return Number.isFinite(value) ? integerFormat.format(value) : '–';
}

/** A figure with `digits` decimals, or a dash while it is not yet known. */
export function formatFixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/** Sets an element's text only when it changes: cheaper layout when figures refresh every frame. */
export function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** What every page exposes on `window.__demo` for the e2e test. Read-only by convention. */
export interface DemoHook {
  /** Which page this is. */
  readonly page: string;
  /** Frames simulated or drawn since load. */
  readonly frame: number;
  /** Page-specific figures and snapshots. */
  readonly [key: string]: unknown;
}

declare global {
  interface Window {
    __demo?: DemoHook;
  }
}

/** Publishes the page's hook; the object is read through getters so the test always sees live values. */
export function exposeHook(hook: DemoHook): void {
  window.__demo = hook;
}
