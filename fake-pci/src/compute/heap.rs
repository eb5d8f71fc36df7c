//! Device `malloc` and `free` ([`Op::Heap`], [`hw::heap`]): each calling lane, in lane
//! order, allocates from or returns to the context's heap, whose free lists live in its
//! own header in device memory, so allocations outlive the grid as CUDA's do and every
//! launch of the context shares them. Lanes of a warp and warps are served in the engine's
//! deterministic order, so the same program gets the same pointers on every run.

use super::{D, Exec, Fault, GridError, RZ, Trap, TrapReason, WarpMem};
use hw::heap::{BLOCK_HEADER, BLOCK_MAGIC, FREE_MAGIC, HEADER, MAX_CLASS, MIN_CLASS, mode};

impl Exec<'_, '_> {
    /// Execute [`Op::Heap`] in lanes `on`.
    pub(crate) fn heap(&mut self, d: D, pc: u32, on: u32, m: &mut WarpMem) -> Result<(), GridError> {
        let frame = self.r.local_window.wrapping_add(d.imm);
        for l in (0..32usize).filter(|l| on >> l & 1 == 1) {
            let mut arg = [0u8; 8];
            self.read_generic(pc, l, m, frame, &mut arg)?;
            let arg = u64::from_le_bytes(arg);
            if d.m == mode::MALLOC {
                let p = self.malloc(arg).map_err(GridError::Fault)?;
                if d.dst != RZ {
                    m.regs[d.dst as usize * 32 + l] = p;
                }
            } else if !self.free(arg).map_err(GridError::Fault)? {
                return Err(GridError::Trap(Trap { reason: TrapReason::OutOfRange, pc }));
            }
        }
        Ok(())
    }

    fn heap_word(&mut self, at: u64) -> Result<u64, Fault> {
        let mut b = [0u8; 8];
        self.cx.tlb.read_va(self.cx.mem, &self.cx.space, self.r.heap.0 + at, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn set_heap_word(&mut self, at: u64, v: u64) -> Result<(), Fault> {
        self.cx.tlb.write_va(self.cx.mem, &self.cx.space, self.r.heap.0 + at, &v.to_le_bytes())
    }

    /// A block of `2^k` bytes at a heap offset: a free one of class k, a larger free one
    /// split (its upper halves go to the lists below), or new bytes; None when none is left.
    fn take_block(&mut self, k: u32) -> Result<Option<u64>, Fault> {
        let size = self.r.heap.1;
        for j in k..=MAX_CLASS {
            let head = self.heap_word(8 * j as u64)?;
            if head == 0 {
                continue;
            }
            let next = self.heap_word(head + 8)?;
            self.set_heap_word(8 * j as u64, next)?;
            // Split down to class k: each upper half becomes a free block of its class.
            for c in (k..j).rev() {
                let half = head + (1u64 << c);
                self.set_heap_word(half, FREE_MAGIC | c as u64)?;
                let first = self.heap_word(8 * c as u64)?;
                self.set_heap_word(half + 8, first)?;
                self.set_heap_word(8 * c as u64, half)?;
            }
            return Ok(Some(head));
        }
        let used = self.heap_word(0)?;
        let at = HEADER + used;
        match at.checked_add(1 << k) {
            Some(end) if end <= size => {
                self.set_heap_word(0, used + (1 << k))?;
                Ok(Some(at))
            }
            _ => Ok(None),
        }
    }

    /// `malloc(n)`: a 16-byte-aligned pointer, 0 for none (no heap, `n` 0, or no room).
    fn malloc(&mut self, n: u64) -> Result<u64, Fault> {
        let (base, size) = self.r.heap;
        let Some(need) = n.checked_add(BLOCK_HEADER).filter(|_| base != 0 && n != 0 && size > HEADER) else {
            return Ok(0);
        };
        let k = need.next_power_of_two().trailing_zeros().max(MIN_CLASS);
        if k > MAX_CLASS || need > size {
            return Ok(0);
        }
        Ok(match self.take_block(k)? {
            Some(at) => {
                self.set_heap_word(at, BLOCK_MAGIC | k as u64)?;
                base + at + BLOCK_HEADER
            }
            None => 0,
        })
    }

    /// `free(p)`: false for a pointer that is not a live block of the heap.
    fn free(&mut self, p: u64) -> Result<bool, Fault> {
        let (base, size) = self.r.heap;
        if p == 0 {
            return Ok(true);
        }
        let at = p.wrapping_sub(base).wrapping_sub(BLOCK_HEADER);
        if base == 0 || !p.is_multiple_of(16) || at < HEADER || at >= size {
            return Ok(false);
        }
        let tag = self.heap_word(at)?;
        let k = (tag & 0xFF) as u32;
        if tag & !0xFF != BLOCK_MAGIC || !(MIN_CLASS..=MAX_CLASS).contains(&k) {
            return Ok(false);
        }
        let first = self.heap_word(8 * k as u64)?;
        self.set_heap_word(at, FREE_MAGIC | k as u64)?;
        self.set_heap_word(at + 8, first)?;
        self.set_heap_word(8 * k as u64, at)?;
        Ok(true)
    }
}
