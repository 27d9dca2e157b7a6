//! QuickJS's heap: one fixed region and a size-class allocator whose whole
//! state is in the region and in [`ArenaState`], so copying both is a
//! snapshot of the engine that can be put back before every run (the
//! sandbox's seal). Nothing of a runtime lives outside its arena, so a run
//! cannot leave anything behind for the next, and a replay is the same run
//! byte for byte.
//!
//! The region's size is the sandbox's memory cap: an allocation that does
//! not fit fails (QuickJS then throws "out of memory"), and the failure is
//! counted, so a bomb whose error vanished into a `catch` is still seen.
//!
//! Blocks are handed out from free lists of their size class, or else from
//! the end of what was ever used (`bump`). Classes are 16-byte steps up to
//! 512 bytes, then powers of two. Each block starts with a 16-byte header
//! holding its class (16 bytes keep payloads aligned for any value).

const HEADER: usize = 16;
const SMALL_STEP: usize = 16;
const SMALL_MAX: usize = 512;
const SMALL_CLASSES: usize = SMALL_MAX / SMALL_STEP;
const CLASSES: usize = SMALL_CLASSES + 32;
/// log2 of the first power-of-two class's capacity (1,024 bytes).
const FIRST_POWER: usize = 10;

/// Everything the allocator knows besides the region's bytes.
#[derive(Clone, Copy)]
pub struct ArenaState {
    /// Bytes of the region ever handed out: everything above is unused.
    used: usize,
    /// Each class's first free block (an address), or 0.
    free: [usize; CLASSES],
}

/// Memory for arenas, all zeros when handed out. Fresh regions come
/// straight from the platform, whose new pages are zero and cost nothing
/// until touched (in wasm, `memory.grow`; a zeroed allocation through
/// Rust's allocator would write all 32 MiB, a few milliseconds and that much
/// resident memory per sandbox); a dropped arena's region is zeroed over
/// what it used and kept for the next.
struct Region {
    start: *mut u8,
    len: usize,
}

impl Region {
    #[cfg(target_arch = "wasm32")]
    fn fresh(len: usize) -> Region {
        const PAGE: usize = 64 * 1024;
        let pages = len.div_ceil(PAGE);
        let old = core::arch::wasm32::memory_grow(0, pages);
        assert!(old != usize::MAX, "the engine could not grow its memory by {len} bytes for a sandbox");
        Region { start: (old * PAGE) as *mut u8, len: pages * PAGE }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn fresh(len: usize) -> Region {
        // Large zeroed allocations are fresh, untouched pages on the platforms the tests run on.
        let region: &mut [u8] = Box::leak(vec![0u8; len].into_boxed_slice());
        Region { start: region.as_mut_ptr(), len }
    }

    /// Gives the region back for good (only where the platform can take it back).
    fn release(self) {
        #[cfg(not(target_arch = "wasm32"))]
        // SAFETY: `fresh` leaked exactly this box.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.start, self.len)) });
    }
}

/// A region of `capacity` bytes that QuickJS allocates from.
pub struct Arena {
    /// The region (all zeros when the arena was made); only touched through
    /// `base` until the arena is dropped.
    region: Option<Region>,
    base: *mut u8,
    capacity: usize,
    state: ArenaState,
    /// The most bytes ever used: everything above is still zero.
    high_water: usize,
    /// Allocations refused since the arena was made: only grows.
    refused: u64,
}

thread_local! {
    /// Regions of dropped arenas, zeroed again, for the next arena: a fresh
    /// region of 32 MiB would be zeroed whole by the allocator (a few ms per
    /// sandbox), while zeroing what a sandbox used costs in proportion to it.
    static ZEROED_REGIONS: std::cell::RefCell<Vec<Region>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Regions kept for reuse where memory can be given back (natively); in
/// wasm every region is kept, since a region is made only when none is free,
/// so there are never more than sandboxes alive at once.
const REGIONS_KEPT: usize = 2;

/// A copy of an arena's used bytes and its state.
#[derive(Default)]
pub struct Snapshot {
    state: ArenaState,
    bytes: Vec<u8>,
}

impl Snapshot {
    /// How many bytes a restore copies.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

fn class_of(total: usize) -> (usize, usize) {
    if total <= SMALL_MAX {
        let steps = total.div_ceil(SMALL_STEP).max(1);
        (steps - 1, steps * SMALL_STEP)
    } else {
        let bits = (usize::BITS - (total - 1).leading_zeros()) as usize;
        (SMALL_CLASSES + bits - FIRST_POWER, 1 << bits)
    }
}

fn capacity_of(class: usize) -> usize {
    if class < SMALL_CLASSES {
        (class + 1) * SMALL_STEP
    } else {
        1 << (class - SMALL_CLASSES + FIRST_POWER)
    }
}

impl Arena {
    /// An empty arena of `capacity` bytes (rounded down to 16).
    pub fn new(capacity: usize) -> Arena {
        let wanted = capacity + HEADER;
        let reused = ZEROED_REGIONS.with(|regions| {
            let mut regions = regions.borrow_mut();
            let index = regions.iter().position(|region| region.len >= wanted)?;
            Some(regions.swap_remove(index))
        });
        let region = reused.unwrap_or_else(|| Region::fresh(wanted));
        let start = region.start;
        let base = start.wrapping_add(start.align_offset(HEADER));
        Arena {
            region: Some(region),
            base,
            capacity: capacity & !(HEADER - 1),
            state: ArenaState::EMPTY,
            high_water: 0,
            refused: 0,
        }
    }

    /// Allocations refused so far (the region was full).
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// Bytes of the region in use or on free lists.
    pub fn used(&self) -> usize {
        self.state.used
    }

    /// A block of at least `size` bytes, or null when the region is full.
    ///
    /// # Safety
    /// The arena's region must not have been written except through these functions.
    pub unsafe fn malloc(&mut self, size: usize) -> *mut u8 {
        let Some(total) = size.checked_add(HEADER) else {
            self.refused += 1;
            return std::ptr::null_mut();
        };
        if total > self.capacity {
            self.refused += 1;
            return std::ptr::null_mut();
        }
        let (class, capacity) = class_of(total);
        let head = self.state.free[class];
        let block = if head != 0 {
            self.state.free[class] = *(head as *const usize);
            head as *mut u8
        } else {
            if self.state.used + capacity > self.capacity {
                self.refused += 1;
                return std::ptr::null_mut();
            }
            let block = self.base.add(self.state.used);
            self.state.used += capacity;
            self.high_water = self.high_water.max(self.state.used);
            block
        };
        *(block as *mut usize) = class;
        block.add(HEADER)
    }

    /// # Safety
    /// `pointer` is null or came from this arena's `malloc`/`realloc` and was not freed.
    pub unsafe fn free(&mut self, pointer: *mut u8) {
        if pointer.is_null() {
            return;
        }
        let block = pointer.sub(HEADER);
        let class = *(block as *const usize);
        *(block as *mut usize) = self.state.free[class];
        self.state.free[class] = block as usize;
    }

    /// # Safety
    /// As for `free`.
    pub unsafe fn realloc(&mut self, pointer: *mut u8, size: usize) -> *mut u8 {
        if pointer.is_null() {
            return self.malloc(size);
        }
        let usable = usable_size(pointer);
        if size <= usable {
            return pointer;
        }
        let fresh = self.malloc(size);
        if !fresh.is_null() {
            std::ptr::copy_nonoverlapping(pointer, fresh, usable);
            self.free(pointer);
        }
        fresh
    }

    /// The used part of the region and the allocator's state, now.
    pub fn snapshot(&self) -> Snapshot {
        // SAFETY: `used` bytes from `base` lie within the region.
        let bytes = unsafe { std::slice::from_raw_parts(self.base, self.state.used) }.to_vec();
        Snapshot { state: self.state, bytes }
    }

    /// Puts back what `snapshot` copied: every block as it was, the free
    /// lists and the used size. Blocks handed out since are forgotten.
    pub fn restore(&mut self, snapshot: &Snapshot) {
        // SAFETY: the snapshot was taken of this region, so it fits.
        unsafe { std::ptr::copy_nonoverlapping(snapshot.bytes.as_ptr(), self.base, snapshot.bytes.len()) };
        self.state = snapshot.state;
    }

    /// Puts the arena back exactly as it was when `snapshot` was taken,
    /// everything above it zero again (as the region was then), so that
    /// nothing written since can be read by whoever uses the arena next.
    pub fn reset_to(&mut self, snapshot: &Snapshot) {
        let kept = snapshot.bytes.len();
        if self.high_water > kept {
            // SAFETY: `high_water` bytes from `base` lie within the region.
            unsafe { std::ptr::write_bytes(self.base.add(kept), 0, self.high_water - kept) };
        }
        self.restore(snapshot);
        self.high_water = kept;
    }

    /// The region's bytes up to the most ever used (for tests comparing two arenas).
    #[cfg(test)]
    pub fn bytes_ever_used(&self) -> &[u8] {
        // SAFETY: `high_water` bytes from `base` lie within the region.
        unsafe { std::slice::from_raw_parts(self.base, self.high_water) }
    }
}

impl Drop for Arena {
    /// The region goes back zeroed, so the next arena starts from zeros,
    /// as a fresh one would: nothing of this heap can reach it.
    fn drop(&mut self) {
        let Some(region) = self.region.take() else { return };
        // SAFETY: the arena used `high_water` bytes from `base`, inside the region.
        unsafe { std::ptr::write_bytes(self.base, 0, self.high_water) };
        // Kept for the next arena, or given back (so too when the thread
        // is ending and its list is already gone: its spare sandboxes go last).
        let mut region = Some(region);
        let _ = ZEROED_REGIONS.try_with(|regions| {
            let mut regions = regions.borrow_mut();
            if cfg!(target_arch = "wasm32") || regions.len() < REGIONS_KEPT {
                regions.extend(region.take());
            }
        });
        if let Some(region) = region {
            region.release();
        }
    }
}

impl ArenaState {
    const EMPTY: ArenaState = ArenaState { used: 0, free: [0; CLASSES] };
}

impl Default for ArenaState {
    fn default() -> ArenaState {
        ArenaState::EMPTY
    }
}

/// The bytes a block from `malloc` can hold.
///
/// # Safety
/// `pointer` is null or a live block of an arena.
pub unsafe fn usable_size(pointer: *const u8) -> usize {
    if pointer.is_null() {
        return 0;
    }
    capacity_of(*(pointer.sub(HEADER) as *const usize)) - HEADER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_hold_what_was_asked_and_round_up_little() {
        for total in 1..70_000 {
            let (class, capacity) = class_of(total);
            assert!(capacity >= total, "{total}");
            assert_eq!(capacity_of(class), capacity, "{total}");
            assert!(class < CLASSES);
        }
        assert_eq!(class_of(16), (0, 16));
        assert_eq!(class_of(513), (SMALL_CLASSES, 1024));
    }

    #[test]
    fn freed_blocks_are_reused_and_a_restore_forgets_later_blocks() {
        let mut arena = Arena::new(1 << 20);
        unsafe {
            let a = arena.malloc(100);
            std::ptr::write_bytes(a, 7, 100);
            let snapshot = arena.snapshot();
            arena.free(a);
            let b = arena.malloc(110);
            assert_eq!(a, b, "the same class reuses the freed block");
            std::ptr::write_bytes(b, 9, 90);
            let c = arena.malloc(5000);
            assert!(!c.is_null());
            arena.restore(&snapshot);
            assert_eq!(*a, 7, "the block's bytes are back");
            assert_eq!(arena.used(), snapshot.len());
            assert_eq!(arena.malloc(5000), c, "the later block is handed out again, from the same place");
        }
    }

    #[test]
    fn a_new_arena_is_all_zeros_even_in_a_reused_region() {
        for _ in 0..3 {
            let mut arena = Arena::new(1 << 16);
            unsafe {
                let block = arena.malloc(60_000);
                let bytes = std::slice::from_raw_parts_mut(block, 60_000);
                assert!(bytes.iter().all(|&byte| byte == 0), "a block from unused space is zero");
                bytes.fill(0xAB);
            }
        }
    }

    #[test]
    fn a_full_arena_refuses_and_counts() {
        let mut arena = Arena::new(4096);
        unsafe {
            assert!(arena.malloc(1 << 20).is_null());
            assert!(!arena.malloc(1000).is_null());
            assert!(arena.malloc(3000).is_null());
            assert_eq!(arena.refused(), 2);
            let small = arena.malloc(10);
            let grown = arena.realloc(small, 100_000);
            assert!(grown.is_null());
            assert_eq!(arena.refused(), 3);
        }
    }
}
