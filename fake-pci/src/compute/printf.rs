//! Device `printf` and `assert` ([`Op::Printf`], [`hw::printf`]): each calling lane, in
//! lane order, reads its call frame, copies what the format's conversions take (and the
//! strings `%s` points at) into one record, and appends it to the channel's printf FIFO
//! through the MMU. A full FIFO drops the record and counts it; no FIFO drops it silently.
//! A fault reading the format or the arguments is the grid's fault, as the load would be.

use super::{D, Exec, Fault, GridError, RZ, Trap, TrapReason, WINDOW_SIZE, WarpMem, WarpPos};
use alloc::vec::Vec;
use hw::printf::{ArgTag, HEADER, KIND_ASSERT, KIND_PRINTF, MAX_ARGS, MAX_STRING, pad8, spec};

/// A record being built.
struct Rec(Vec<u8>);

impl Rec {
    fn new(kind: u16) -> Self {
        let mut v = Vec::with_capacity(64);
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&kind.to_le_bytes());
        v.extend_from_slice(&0u16.to_le_bytes());
        Rec(v)
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn string(&mut self, s: &[u8]) {
        self.u32(s.len() as u32);
        self.u32(0);
        self.0.extend_from_slice(s);
        self.0.resize(pad8(self.0.len()), 0);
    }
    fn finish(mut self, count: u16) -> Vec<u8> {
        let len = self.0.len() as u32;
        self.0[0..4].copy_from_slice(&len.to_le_bytes());
        self.0[6..8].copy_from_slice(&count.to_le_bytes());
        self.0
    }
}

impl Exec<'_, '_> {
    /// Execute [`Op::Printf`] in lanes `on`.
    pub(crate) fn printf(&mut self, d: D, pc: u32, on: u32, pos: WarpPos, m: &mut WarpMem) -> Result<(), GridError> {
        let frame = self.r.local_window.wrapping_add(d.imm);
        for l in 0..32usize {
            if on >> l & 1 == 0 {
                continue;
            }
            let word = |this: &mut Self, m: &WarpMem, at: u64, n: usize| -> Result<u64, GridError> {
                let mut b = [0u8; 8];
                this.read_generic(pc, l, m, frame.wrapping_add(at), &mut b[..n])?;
                Ok(u64::from_le_bytes(b))
            };
            let rec = if d.m == hw::isa::printf_mode::ASSERT {
                let (msg, file) = (word(self, m, 0, 8)?, word(self, m, 8, 8)?);
                let (line, func) = (word(self, m, 16, 4)? as u32, word(self, m, 24, 8)?);
                let mut r = Rec::new(KIND_ASSERT);
                let tid = pos.base + l as u32;
                let [bx, by, _] = self.r.block;
                let (bx, by) = (bx.max(1), by.max(1));
                for v in pos.ctaid.into_iter().chain([tid % bx, tid / bx % by, tid / (bx * by)]) {
                    r.u32(v);
                }
                r.u32(line);
                r.u32(0);
                for p in [msg, file, func] {
                    let s = self.read_string(pc, l, m, p)?;
                    r.string(&s);
                }
                Some(r.finish(0))
            } else {
                let (fmt, args) = (word(self, m, 0, 8)?, word(self, m, 8, 8)?);
                let (rec, count) = if fmt == 0 { (None, -1i64) } else { self.vprintf(pc, l, m, fmt, args)? };
                if d.dst != RZ {
                    m.regs[d.dst as usize * 32 + l] = count as i32 as u32 as u64;
                }
                rec
            };
            if let Some(rec) = rec {
                self.append(&rec).map_err(GridError::Fault)?;
            }
        }
        Ok(())
    }

    /// One lane's `vprintf(fmt, args)`: its record and the number of arguments.
    fn vprintf(
        &mut self,
        pc: u32,
        l: usize,
        m: &WarpMem,
        fmt: u64,
        args: u64,
    ) -> Result<(Option<Vec<u8>>, i64), GridError> {
        let text = self.read_string(pc, l, m, fmt)?;
        let mut r = Rec::new(KIND_PRINTF);
        r.string(&text);
        let (mut at, mut count, mut i) = (0u64, 0u16, 0usize);
        while i < text.len() {
            if text[i] != b'%' {
                i += 1;
                continue;
            }
            let Some(s) = spec(&text[i..]) else {
                i += 1;
                continue;
            };
            i += s.len;
            let Some((tag, size)) = s.arg() else { continue };
            if count as usize == MAX_ARGS {
                break;
            }
            at = at.next_multiple_of(size as u64);
            let mut b = [0u8; 8];
            self.read_generic(pc, l, m, args.wrapping_add(at), &mut b[..size as usize])?;
            at += size as u64;
            let v = u64::from_le_bytes(b);
            match tag {
                ArgTag::Str if v != 0 => {
                    r.u32(ArgTag::Str as u32);
                    r.u32(0);
                    let s = self.read_string(pc, l, m, v)?;
                    r.string(&s);
                }
                ArgTag::Str => {
                    r.u32(ArgTag::NullStr as u32);
                    r.u32(0);
                    r.u64(0);
                }
                _ => {
                    r.u32(tag as u32);
                    r.u32(0);
                    r.u64(v);
                }
            }
            count += 1;
        }
        Ok((Some(r.finish(count)), count as i64))
    }

    /// Append `rec` to the FIFO at PRINTF_ADDRESS, or count it dropped.
    fn append(&mut self, rec: &[u8]) -> Result<(), Fault> {
        let base = self.r.printf;
        if base == 0 {
            return Ok(());
        }
        let mut h = [0u8; 12];
        self.cx.tlb.read_va(self.cx.mem, &self.cx.space, base, &mut h)?;
        let used = u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as u64;
        let cap = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as u64;
        if used + rec.len() as u64 > cap {
            let dropped = u32::from_le_bytes([h[8], h[9], h[10], h[11]]).saturating_add(1);
            return self.cx.tlb.write_va(self.cx.mem, &self.cx.space, base + 8, &dropped.to_le_bytes());
        }
        self.cx.tlb.write_va(self.cx.mem, &self.cx.space, base + HEADER as u64 + used, rec)?;
        let used = (used + rec.len() as u64) as u32;
        self.cx.tlb.write_va(self.cx.mem, &self.cx.space, base, &used.to_le_bytes())
    }

    /// `buf.len()` bytes at generic address `addr` as lane `l` sees them (its local
    /// window, the block's shared window, or global memory).
    pub(crate) fn read_generic(
        &mut self,
        pc: u32,
        l: usize,
        m: &WarpMem,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), GridError> {
        let out = GridError::Trap(Trap { reason: TrapReason::OutOfRange, pc });
        let (sw, lw) = (self.r.shared_window, self.r.local_window);
        let local = self.r.local_size as usize;
        let n = buf.len();
        fn window(w: &[u8], off: u64, n: usize) -> Option<&[u8]> {
            w.get(off as usize..(off as usize).checked_add(n)?)
        }
        if sw != 0 && addr.wrapping_sub(sw) < WINDOW_SIZE {
            let cta = self.r.shared as usize;
            let mine = m.shared.get(m.rank as usize * cta..(m.rank as usize + 1) * cta).ok_or(out)?;
            buf.copy_from_slice(window(mine, addr - sw, n).ok_or(out)?);
        } else if lw != 0 && addr.wrapping_sub(lw) < WINDOW_SIZE {
            let mine = m.local.get(l * local..(l + 1) * local).ok_or(out)?;
            buf.copy_from_slice(window(mine, addr - lw, n).ok_or(out)?);
        } else {
            self.cx.tlb.read_va(self.cx.mem, &self.cx.space, addr, buf).map_err(GridError::Fault)?;
        }
        Ok(())
    }

    /// The NUL-terminated string at generic address `addr` (at most [`MAX_STRING`] bytes).
    fn read_string(&mut self, pc: u32, l: usize, m: &WarpMem, addr: u64) -> Result<Vec<u8>, GridError> {
        let mut s = Vec::new();
        // In chunks that do not cross a 256-byte boundary (a page is never crossed
        // needlessly: the string may end just before an unmapped page).
        let mut at = addr;
        while s.len() < MAX_STRING {
            let n = (256 - (at & 255)) as usize;
            let mut chunk = [0u8; 256];
            self.read_generic(pc, l, m, at, &mut chunk[..n])?;
            if let Some(z) = chunk[..n].iter().position(|&c| c == 0) {
                s.extend_from_slice(&chunk[..z]);
                break;
            }
            s.extend_from_slice(&chunk[..n]);
            at += n as u64;
        }
        s.truncate(MAX_STRING);
        Ok(s)
    }
}
