//! QuickJS's heap: one fixed region and the allocator of [`crate::heap`],
//! whose whole state is in the region and in a [`HeapState`], so copying
//! both is a snapshot of the engine that can be put back before every run
//! (the sandbox's seal). Nothing of a runtime lives outside its arena, so a
//! run cannot leave anything behind for the next, and a replay is the same
//! run byte for byte.
//!
//! The region's size is the sandbox's memory cap: an allocation that does
//! not fit fails (QuickJS then throws "out of memory"), and the failure is
//! counted, so a bomb whose error vanished into a `catch` is still seen.

use crate::heap::{Heap, HeapState};

/// The heap's blocks are aligned to this, and so is the region's start.
const ALIGN: usize = 16;

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
    state: HeapState,
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
    state: HeapState,
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

impl Arena {
    /// An empty arena of `capacity` bytes (rounded down to 16).
    pub fn new(capacity: usize) -> Arena {
        let wanted = capacity + ALIGN;
        let reused = ZEROED_REGIONS.with(|regions| {
            let mut regions = regions.borrow_mut();
            let index = regions.iter().position(|region| region.len >= wanted)?;
            Some(regions.swap_remove(index))
        });
        let region = reused.unwrap_or_else(|| Region::fresh(wanted));
        let start = region.start;
        let base = start.wrapping_add(start.align_offset(ALIGN));
        Arena {
            region: Some(region),
            base,
            capacity: capacity & !(ALIGN - 1),
            state: HeapState::EMPTY,
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

    fn heap(&mut self) -> Heap<'_> {
        Heap { base: self.base, capacity: self.capacity, state: &mut self.state }
    }

    fn refused_if_null(&mut self, block: *mut u8) -> *mut u8 {
        if block.is_null() {
            self.refused += 1;
        } else {
            self.high_water = self.high_water.max(self.state.used);
        }
        block
    }

    /// A block of at least `size` bytes, or null when the region is full.
    ///
    /// # Safety
    /// The arena's region must not have been written except through these functions.
    pub unsafe fn malloc(&mut self, size: usize) -> *mut u8 {
        let block = self.heap().allocate(size);
        self.refused_if_null(block)
    }

    /// # Safety
    /// `pointer` is null or came from this arena's `malloc`/`realloc` and was not freed.
    pub unsafe fn free(&mut self, pointer: *mut u8) {
        self.heap().free(pointer);
    }

    /// # Safety
    /// As for `free`.
    pub unsafe fn realloc(&mut self, pointer: *mut u8, size: usize) -> *mut u8 {
        let block = self.heap().reallocate(pointer, size);
        self.refused_if_null(block)
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

    /// Zeroes what was used and given back since the arena was made, as if
    /// it had never been used: the arena is then what `snapshot` and
    /// `reset_to` would make of it, byte for byte.
    pub fn zero_unused(&mut self) {
        let used = self.state.used;
        if self.high_water > used {
            // SAFETY: `high_water` bytes from `base` lie within the region.
            unsafe { std::ptr::write_bytes(self.base.add(used), 0, self.high_water - used) };
        }
        self.high_water = used;
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

/// The bytes a block from `malloc` can hold.
///
/// # Safety
/// `pointer` is null or a live block of an arena.
pub unsafe fn usable_size(pointer: *const u8) -> usize {
    crate::heap::usable_size(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_blocks_are_reused_and_a_restore_forgets_later_blocks() {
        let mut arena = Arena::new(1 << 20);
        unsafe {
            let a = arena.malloc(100);
            std::ptr::write_bytes(a, 7, 100);
            let snapshot = arena.snapshot();
            arena.free(a);
            let b = arena.malloc(110);
            assert_eq!(a, b, "the freed block is handed out again");
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
            assert!(arena.malloc(3100).is_null());
            assert!(!arena.malloc(3000).is_null(), "what is left of the arena is there to take");
            assert_eq!(arena.refused(), 2);
            let grown = arena.realloc(std::ptr::null_mut(), 100_000);
            assert!(grown.is_null());
            assert_eq!(arena.refused(), 3);
        }
    }
}
