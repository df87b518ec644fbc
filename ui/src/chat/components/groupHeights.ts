/**
 * The heights of a long answer's groups of blocks (useBlockWindow.ts): as measured when last in
 * the page, else as estimated from their text. A spacer standing for a group is this tall, so the
 * scroll bar and the scroll position stay right while the group is out of the page.
 */
import { ESTIMATE_WIDTH, calibrated, estimateGroupHeight, groupKey, type Calibration } from './blockWindow';

/**
 * Heights measured by group key, for the page (a key stands for the group's text): an answer
 * reopened, or drawn again once its run ended (a new component), keeps its groups' heights.
 * Bounded, oldest out first.
 */
const kept = new Map<string, number>();
const KEPT_MAX = 20_000;
/** The sums behind the estimates' correction, for the page: estimates err the same way across answers (fonts, width). */
const calibration: Calibration = { measured: 0, estimated: 0 };

function keep(key: string, height: number) {
  kept.delete(key);
  kept.set(key, height);
  if (kept.size > KEPT_MAX) {
    const oldest = kept.keys().next().value;
    if (oldest !== undefined) kept.delete(oldest);
  }
}

/** One answer's groups' heights. */
export class GroupHeights {
  private keys: readonly string[] = [];
  private blocks: readonly (readonly string[])[] = [];
  /** Measured of this answer's groups, with the key they were measured with. */
  private own = new Map<number, { key: string; height: number }>();
  private estimates = new Map<string, number>();
  /** The answer's width once it was laid out: estimates wrap lines at it. */
  width = ESTIMATE_WIDTH;

  constructor(blocks: readonly (readonly string[])[]) {
    this.set(blocks, blocks.map(groupKey));
  }

  /** This render's groups, and their keys (`groupKey`). Whether any group's text changed. */
  set(blocks: readonly (readonly string[])[], keys: readonly string[]): boolean {
    const changed = keys.length !== this.keys.length || keys.some((key, i) => key !== this.keys[i]);
    this.blocks = blocks;
    this.keys = keys;
    return changed;
  }

  get count(): number {
    return this.keys.length;
  }

  /** Group `i`'s height: as measured last (this answer's, else the page's), else estimated. */
  of(i: number): number {
    const key = this.keys[i] ?? '';
    const own = this.own.get(i);
    if (own && own.key === key) return own.height;
    const known = kept.get(key);
    if (known !== undefined) return known;
    return calibrated(this.estimateOf(i), calibration);
  }

  /** Group `i`'s height as last measured in this answer, whatever its text was then. */
  measured(i: number): number | undefined {
    return this.own.get(i)?.height;
  }

  /** Group `i` measured `height` tall in the page. */
  record(i: number, height: number) {
    const key = this.keys[i];
    if (key === undefined || !(height > 0)) return;
    // Only a group's first measure says how far off its estimate was.
    if (!this.own.has(i) && !kept.has(key)) {
      calibration.measured += height;
      calibration.estimated += this.estimateOf(i);
    }
    this.own.set(i, { key, height });
    keep(key, height);
  }

  /**
   * The groups in the page (`drawn`) whose text changed without changing their height (no
   * resize said so) are as tall as measured last: that height stands for their text now, else,
   * taken out, their spacer would be an estimate.
   */
  carryOver(drawn: (i: number) => boolean) {
    for (const [i, own] of this.own) {
      const key = this.keys[i];
      if (key !== undefined && own.key !== key && drawn(i)) {
        this.own.set(i, { key, height: own.height });
        keep(key, own.height);
      }
    }
  }

  private estimateOf(i: number): number {
    const key = this.keys[i] ?? '';
    let estimate = this.estimates.get(key);
    if (estimate === undefined) {
      estimate = estimateGroupHeight(this.blocks[i] ?? [], this.width);
      // A growing group leaves a key at each update: bounded.
      if (this.estimates.size > 4 * this.keys.length + 16) this.estimates.clear();
      this.estimates.set(key, estimate);
    }
    return estimate;
  }
}
