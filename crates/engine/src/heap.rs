//! The allocator inside an arena: boundary-tagged blocks, free blocks
//! merged with their free neighbours, and segregated free lists found in
//! constant time by two levels of bitmaps (the design known as TLSF).
//!
//! A submission gets the memory the arena holds: a block is rounded up to
//! 16 bytes and never to a power of two, a freed block merges with the free
//! blocks beside it, a block can grow into the free space after it, and
//! free space at the end of what was ever handed out goes back to it.
//!
//! Everything the allocator knows is in the region itself (each block's
//! header, a free block's links) and in [`HeapState`], a plain value: a copy
//! of both is a snapshot of the heap.
//!
//! A block: a 16-byte header (its size with two flags; the previous block's
//! size, valid while that block is free), then its payload. A free block's
//! payload starts with the addresses of its list's next and previous blocks.

const HEADER: usize = 16;
const ALIGN: usize = 16;
/// A free block holds its two links.
const BLOCK_MIN: usize = HEADER + 2 * std::mem::size_of::<usize>();
const FREE: usize = 1;
const PREVIOUS_FREE: usize = 2;
const FLAGS: usize = FREE | PREVIOUS_FREE;

/// Each power of two is divided into this many lists.
const SECOND_LEVEL_BITS: u32 = 4;
const SECOND_LEVEL: usize = 1 << SECOND_LEVEL_BITS;
/// Below this size, one list per 16 bytes.
const SMALL: usize = SECOND_LEVEL * ALIGN;
const SMALL_BITS: u32 = SMALL.trailing_zeros();
/// First-level lists: blocks up to 2^(SMALL_BITS + FIRST_LEVEL - 1) bytes (4 GiB).
const FIRST_LEVEL: usize = 25;

/// What the allocator knows besides the region's bytes.
#[derive(Clone, Copy)]
pub struct HeapState {
    /// Bytes handed out from the region's start: everything above is unused.
    pub used: usize,
    first_level_map: u32,
    second_level_maps: [u32; FIRST_LEVEL],
    /// Each list's first block (an address), or 0.
    heads: [[usize; SECOND_LEVEL]; FIRST_LEVEL],
}

impl Default for HeapState {
    fn default() -> HeapState {
        HeapState::EMPTY
    }
}

impl HeapState {
    pub const EMPTY: HeapState = HeapState {
        used: 0,
        first_level_map: 0,
        second_level_maps: [0; FIRST_LEVEL],
        heads: [[0; SECOND_LEVEL]; FIRST_LEVEL],
    };
}

/// The heap of one arena: its region's start and size, and its state.
pub struct Heap<'a> {
    pub base: *mut u8,
    pub capacity: usize,
    pub state: &'a mut HeapState,
}

/// A block's total size (header included) for a request of `size` bytes.
fn block_size_for(size: usize) -> Option<usize> {
    let total = size.checked_add(HEADER + ALIGN - 1)? & !(ALIGN - 1);
    Some(total.max(BLOCK_MIN))
}

/// The list a free block of `size` bytes belongs to.
fn list_of(size: usize) -> (usize, usize) {
    if size < SMALL {
        return (0, size / ALIGN);
    }
    let bits = usize::BITS - 1 - size.leading_zeros();
    let second = (size >> (bits - SECOND_LEVEL_BITS)) & (SECOND_LEVEL - 1);
    ((bits - SMALL_BITS + 1) as usize, second)
}

/// The first list whose every block holds `size` bytes.
fn list_holding(size: usize) -> (usize, usize) {
    if size < SMALL {
        return list_of(size);
    }
    let bits = usize::BITS - 1 - size.leading_zeros();
    list_of(size.saturating_add((1 << (bits - SECOND_LEVEL_BITS)) - 1))
}

// The header's fields, read and written in place.
unsafe fn size_and_flags(block: *mut u8) -> usize {
    *(block as *const usize)
}
unsafe fn set_size_and_flags(block: *mut u8, value: usize) {
    *(block as *mut usize) = value;
}
unsafe fn size(block: *mut u8) -> usize {
    size_and_flags(block) & !FLAGS
}
unsafe fn previous_size(block: *mut u8) -> usize {
    *(block.add(std::mem::size_of::<usize>()) as *const usize)
}
unsafe fn set_previous_size(block: *mut u8, value: usize) {
    *(block.add(std::mem::size_of::<usize>()) as *mut usize) = value;
}
unsafe fn next_free(block: *mut u8) -> usize {
    *(block.add(HEADER) as *const usize)
}
unsafe fn previous_free(block: *mut u8) -> usize {
    *(block.add(HEADER + std::mem::size_of::<usize>()) as *const usize)
}
unsafe fn set_links(block: *mut u8, next: usize, previous: usize) {
    *(block.add(HEADER) as *mut usize) = next;
    *(block.add(HEADER + std::mem::size_of::<usize>()) as *mut usize) = previous;
}

/// The bytes a block from `Heap::allocate` can hold.
///
/// # Safety
/// `payload` is null or a live block of a heap.
pub unsafe fn usable_size(payload: *const u8) -> usize {
    if payload.is_null() {
        return 0;
    }
    size(payload.sub(HEADER) as *mut u8) - HEADER
}

impl Heap<'_> {
    fn end(&self) -> *mut u8 {
        self.base.wrapping_add(self.state.used)
    }

    unsafe fn insert(&mut self, block: *mut u8) {
        let (first, second) = list_of(size(block));
        let head = self.state.heads[first][second];
        set_links(block, head, 0);
        if head != 0 {
            *((head as *mut u8).add(HEADER + std::mem::size_of::<usize>()) as *mut usize) = block as usize;
        }
        self.state.heads[first][second] = block as usize;
        self.state.first_level_map |= 1 << first;
        self.state.second_level_maps[first] |= 1 << second;
    }

    unsafe fn remove(&mut self, block: *mut u8) {
        let (first, second) = list_of(size(block));
        let (next, previous) = (next_free(block), previous_free(block));
        if next != 0 {
            *((next as *mut u8).add(HEADER + std::mem::size_of::<usize>()) as *mut usize) = previous;
        }
        if previous != 0 {
            *((previous as *mut u8).add(HEADER) as *mut usize) = next;
        } else {
            self.state.heads[first][second] = next;
            if next == 0 {
                self.state.second_level_maps[first] &= !(1 << second);
                if self.state.second_level_maps[first] == 0 {
                    self.state.first_level_map &= !(1 << first);
                }
            }
        }
    }

    /// A free block from the lists that holds `size` bytes, taken off its list.
    unsafe fn take_fitting(&mut self, size: usize) -> Option<*mut u8> {
        let (mut first, second) = list_holding(size);
        if first >= FIRST_LEVEL {
            return None;
        }
        let mut seconds = self.state.second_level_maps[first] & (u32::MAX << second);
        if seconds == 0 {
            let firsts = self.state.first_level_map & u32::MAX.checked_shl(first as u32 + 1).unwrap_or(0);
            if firsts == 0 {
                return None;
            }
            first = firsts.trailing_zeros() as usize;
            seconds = self.state.second_level_maps[first];
        }
        let block = self.state.heads[first][seconds.trailing_zeros() as usize] as *mut u8;
        self.remove(block);
        Some(block)
    }

    /// Marks `block` (of `total` bytes) free: its flags, the next block's
    /// flag and boundary tag. The caller puts it on a list or gives it back.
    unsafe fn mark_free(&mut self, block: *mut u8, total: usize) {
        let previous_flag = size_and_flags(block) & PREVIOUS_FREE;
        set_size_and_flags(block, total | FREE | previous_flag);
        let next = block.add(total);
        if next < self.end() {
            set_size_and_flags(next, size_and_flags(next) | PREVIOUS_FREE);
            set_previous_size(next, total);
        }
    }

    /// Marks `block` (of `total` bytes) used, and tells the next block.
    unsafe fn mark_used(&mut self, block: *mut u8, total: usize) {
        let previous_flag = size_and_flags(block) & PREVIOUS_FREE;
        set_size_and_flags(block, total | previous_flag);
        let next = block.add(total);
        if next < self.end() {
            set_size_and_flags(next, size_and_flags(next) & !PREVIOUS_FREE);
        }
    }

    /// Frees the part of a used block past `keep` bytes, if it can stand as a block.
    unsafe fn trim(&mut self, block: *mut u8, keep: usize) {
        let total = size(block);
        if total - keep < BLOCK_MIN {
            return;
        }
        self.mark_used(block, keep);
        let rest = block.add(keep);
        set_size_and_flags(rest, total - keep);
        self.release(rest);
    }

    /// A used block becomes free: merged with free neighbours, then put on
    /// its list, or given back to the unused space when it ends there.
    unsafe fn release(&mut self, mut block: *mut u8) {
        let mut total = size(block);
        let next = block.add(total);
        if next < self.end() && size_and_flags(next) & FREE != 0 {
            self.remove(next);
            total += size(next);
        }
        if size_and_flags(block) & PREVIOUS_FREE != 0 {
            let previous = block.sub(previous_size(block));
            self.remove(previous);
            total += size(previous);
            block = previous;
        }
        if block.add(total) == self.end() {
            self.state.used = block as usize - self.base as usize;
            return;
        }
        self.mark_free(block, total);
        self.insert(block);
    }

    /// A block of at least `size` bytes, or null when the heap is full.
    ///
    /// # Safety
    /// The region must not have been written except through this heap.
    pub unsafe fn allocate(&mut self, size: usize) -> *mut u8 {
        let Some(total) = block_size_for(size).filter(|&total| total <= self.capacity) else {
            return std::ptr::null_mut();
        };
        if let Some(block) = self.take_fitting(total) {
            self.mark_used(block, self::size(block));
            self.trim(block, total);
            return block.add(HEADER);
        }
        if self.state.used + total > self.capacity {
            return std::ptr::null_mut();
        }
        // From the unused space: the block before it, if any, is in use
        // (free space at the end is always given back).
        let block = self.end();
        self.state.used += total;
        set_size_and_flags(block, total);
        block.add(HEADER)
    }

    /// # Safety
    /// `payload` is null or a live block of this heap.
    pub unsafe fn free(&mut self, payload: *mut u8) {
        if !payload.is_null() {
            self.release(payload.sub(HEADER));
        }
    }

    /// The block grown or shrunk in place where it can be (into the free
    /// block after it, or the unused space when it is the last block), else
    /// moved. Null, and the block left as it was, when the heap is full.
    ///
    /// # Safety
    /// `payload` is null or a live block of this heap.
    pub unsafe fn reallocate(&mut self, payload: *mut u8, size: usize) -> *mut u8 {
        if payload.is_null() {
            return self.allocate(size);
        }
        let Some(total) = block_size_for(size).filter(|&total| total <= self.capacity) else {
            return std::ptr::null_mut();
        };
        let block = payload.sub(HEADER);
        let current = self::size(block);
        if total <= current {
            self.trim(block, total);
            return payload;
        }
        let next = block.add(current);
        if next == self.end() {
            if self.state.used + (total - current) <= self.capacity {
                self.state.used += total - current;
                self.mark_used(block, total);
                return payload;
            }
        } else if size_and_flags(next) & FREE != 0 && current + self::size(next) >= total {
            self.remove(next);
            self.mark_used(block, current + self::size(next));
            self.trim(block, total);
            return payload;
        }
        let moved = self.allocate(size);
        if !moved.is_null() {
            std::ptr::copy_nonoverlapping(payload, moved, current - HEADER);
            self.free(payload);
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct TestHeap {
        region: Vec<u128>,
        state: HeapState,
    }

    impl TestHeap {
        fn new(capacity: usize) -> TestHeap {
            TestHeap { region: vec![0; capacity / 16], state: HeapState::EMPTY }
        }
        fn heap(&mut self) -> Heap<'_> {
            let capacity = self.region.len() * 16;
            Heap { base: self.region.as_mut_ptr().cast(), capacity, state: &mut self.state }
        }
    }

    /// The smallest block size that `list_of` puts in list (first, second).
    fn smallest_in(first: usize, second: usize) -> usize {
        if first == 0 {
            return second * ALIGN;
        }
        let bits = first as u32 + SMALL_BITS - 1;
        (1 << bits) + (second << (bits - SECOND_LEVEL_BITS))
    }

    #[test]
    fn every_size_finds_a_list_whose_blocks_hold_it() {
        for size in (BLOCK_MIN..1 << 22).step_by(16) {
            let (first, second) = list_of(size);
            assert!(first < FIRST_LEVEL && second < SECOND_LEVEL, "{size}");
            assert!(smallest_in(first, second) <= size, "{size}");
            let (first_holding, second_holding) = list_holding(size);
            assert!((first_holding, second_holding) >= (first, second), "{size}");
            assert!(
                smallest_in(first_holding, second_holding) >= size,
                "{size}: every block of the list found holds it"
            );
        }
    }

    #[test]
    fn a_large_block_costs_its_size_not_the_next_power_of_two() {
        let mut test = TestHeap::new(32 << 20);
        let mut heap = test.heap();
        unsafe {
            let a = heap.allocate(20 << 20);
            assert!(!a.is_null(), "20 MiB fit in 32");
            assert!(heap.state.used < (20 << 20) + 64);
            let b = heap.allocate(11 << 20);
            assert!(!b.is_null(), "and 11 more");
        }
    }

    #[test]
    fn freed_neighbours_merge_and_serve_a_larger_block() {
        let mut test = TestHeap::new(1 << 20);
        let mut heap = test.heap();
        unsafe {
            let blocks: Vec<*mut u8> = (0..8).map(|_| heap.allocate(100_000)).collect();
            assert!(blocks.iter().all(|block| !block.is_null()));
            let used = heap.state.used;
            for &block in &blocks[1..5] {
                heap.free(block);
            }
            // Four freed neighbours hold a block of 390,000 bytes without growing the heap.
            let merged = heap.allocate(390_000);
            assert_eq!(merged, blocks[1]);
            assert_eq!(heap.state.used, used);
            // Freeing the last block gives its space back.
            heap.free(blocks[7]);
            assert!(heap.state.used < used);
        }
    }

    #[test]
    fn a_growing_array_grows_in_place_at_the_end() {
        let mut test = TestHeap::new(32 << 20);
        let mut heap = test.heap();
        unsafe {
            let mut block = heap.allocate(16);
            std::ptr::write_bytes(block, 7, 16);
            let mut size = 16;
            while size * 2 <= 24 << 20 {
                size *= 2;
                let grown = heap.reallocate(block, size);
                assert!(!grown.is_null(), "{size}");
                assert_eq!(*grown, 7, "the contents move with the block");
                block = grown;
            }
            assert!(heap.state.used < (24 << 20) + 4096, "no copy left behind: {}", heap.state.used);
        }
    }

    #[test]
    fn a_full_heap_refuses_and_keeps_the_block() {
        let mut test = TestHeap::new(4096);
        let mut heap = test.heap();
        unsafe {
            assert!(heap.allocate(1 << 20).is_null());
            let block = heap.allocate(1000);
            *block = 9;
            assert!(heap.allocate(3100).is_null());
            assert!(heap.reallocate(block, 100_000).is_null());
            assert_eq!(*block, 9, "a refused realloc leaves the block as it was");
            assert!(heap.allocate(usize::MAX - 8).is_null());
        }
    }

    /// Random allocations, frees and reallocations against a model: no two
    /// live blocks overlap, each keeps its bytes, and freeing everything
    /// gives the whole heap back.
    #[test]
    fn random_use_keeps_blocks_apart_and_gives_everything_back() {
        let mut test = TestHeap::new(4 << 20);
        let mut heap = test.heap();
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut live: Vec<(*mut u8, usize, u8)> = Vec::new();
        unsafe {
            for round in 0..40_000u32 {
                let choice = next() % 10;
                if choice < 5 || live.is_empty() {
                    let size = match next() % 10 {
                        0 => (next() % 200_000) as usize,
                        1..=3 => (next() % 4096) as usize,
                        _ => (next() % 300) as usize,
                    };
                    let block = heap.allocate(size);
                    if !block.is_null() {
                        let tag = (round % 251) as u8;
                        std::ptr::write_bytes(block, tag, size);
                        live.push((block, size, tag));
                    }
                } else if choice < 8 {
                    let (block, size, tag) = live.swap_remove((next() as usize) % live.len());
                    assert!(std::slice::from_raw_parts(block, size).iter().all(|&byte| byte == tag));
                    heap.free(block);
                } else {
                    let index = (next() as usize) % live.len();
                    let (block, size, tag) = live[index];
                    let new_size = (next() % 20_000) as usize;
                    let moved = heap.reallocate(block, new_size);
                    if !moved.is_null() {
                        let kept = size.min(new_size);
                        assert!(std::slice::from_raw_parts(moved, kept).iter().all(|&byte| byte == tag));
                        std::ptr::write_bytes(moved, tag, new_size);
                        live[index] = (moved, new_size, tag);
                    }
                }
                if round % 1000 == 0 {
                    let mut spans: Vec<(usize, usize)> =
                        live.iter().map(|&(block, size, _)| (block as usize, block as usize + size)).collect();
                    spans.sort();
                    assert!(spans.windows(2).all(|pair| pair[0].1 <= pair[1].0), "live blocks overlap");
                }
            }
            for (block, _, _) in live.drain(..) {
                heap.free(block);
            }
            assert_eq!(heap.state.used, 0, "everything freed merges back into the unused space");
            assert_eq!(heap.state.first_level_map, 0);
        }
    }
}
