/**
 * A counting semaphore: at most `size` holders at once, the rest served in
 * arrival order. Taking a free slot costs no promise of its own. The size
 * may change while it is held (the adaptive concurrency limit): a larger
 * one lets waiters in at once, a smaller one takes effect as holders leave.
 */
export class Slots {
  private taken = 0;
  private readonly waiters: (() => void)[] = [];
  private head = 0;

  constructor(private size: number) {}

  /** Slots there are now. */
  get capacity(): number {
    return this.size;
  }

  /** Change how many may hold a slot at once (at least one). */
  resize(size: number): void {
    this.size = Math.max(1, size);
    while (this.taken < this.size && this.head < this.waiters.length) {
      this.taken++;
      this.handOn();
    }
  }

  /** Slots held now. */
  get busy(): number {
    return this.taken;
  }

  acquire(): Promise<void> | undefined {
    if (this.taken < this.size) {
      this.taken++;
      return undefined;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hand the slot to the next waiter, or free it (free it when there are more holders than slots now). */
  release(): void {
    if (this.head < this.waiters.length && this.taken <= this.size) {
      this.handOn();
      return;
    }
    this.taken--;
  }

  /** Wake the next waiter; the slot it takes is counted already. */
  private handOn(): void {
    const next = this.waiters[this.head]!;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters.splice(0, this.head);
      this.head = 0;
    }
    next();
  }
}
