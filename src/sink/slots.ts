/**
 * A counting semaphore: at most `size` holders at once, the rest served in
 * arrival order. Taking a free slot costs no promise of its own.
 */
export class Slots {
  private taken = 0;
  private readonly waiters: (() => void)[] = [];
  private head = 0;

  constructor(private readonly size: number) {}

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

  /** Hand the slot to the next waiter, or free it. */
  release(): void {
    if (this.head < this.waiters.length) {
      const next = this.waiters[this.head]!;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.waiters.length) {
        this.waiters.splice(0, this.head);
        this.head = 0;
      }
      next();
      return;
    }
    this.taken--;
  }
}
