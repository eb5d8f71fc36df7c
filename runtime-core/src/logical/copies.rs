//! A logical GPU's copies and memsets: those that touch a split allocation are split per
//! page owner, each piece on its owner's copy engine (blocking host copies one owner
//! after another; stream-ordered ones on each owner's stream, bracketed by fences as a
//! launch's parts are; 2D ones by runs of rows).

use super::{Gang, LogicalGpu};
use crate::api::{CtxHandle, Gpu, Object};
use crate::channel::Fence;
use crate::context::memory::{MemsetValue, Pitched};
use crate::context::stream::StreamHandle;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::vec::Vec;

/// A part of a 2D region of a split allocation on one GPU ([`LogicalGpu::rows`]): rows
/// `[row, row + rows)` whole, or (`span`) the bytes `[offset, offset + len)` of row `row`.
#[derive(Clone, Copy, Debug)]
struct Rows {
    row: u64,
    rows: u64,
    span: Option<(u64, u64)>,
}

impl Rows {
    /// This part of a 2D operation `shape` from `dst` (rows `dst_pitch` apart) and `src`
    /// (rows `src_pitch` apart): its destination, its source and its own shape.
    fn of(&self, dst: u64, src: u64, shape: Pitched) -> (u64, u64, Pitched) {
        let (d, s) = (dst + self.row * shape.dst_pitch, src + self.row * shape.src_pitch);
        match self.span {
            None => (d, s, Pitched { height: self.rows, ..shape }),
            Some((off, len)) => (d + off, s + off, Pitched::linear(len)),
        }
    }
}

/// One piece of work per owner: (owner, None for the first GPU, and what the work takes).
type Parts<T> = [(Option<usize>, T)];

/// A device pointer and a length in bytes.
type Span = (u64, u64);

impl<P: Platform> LogicalGpu<P> {
    /// See [`Gpu::memcpy_htod`]: into a split allocation, each piece to its owner's VRAM
    /// through the owner's copy engine, once the default stream's earlier work is done.
    pub fn memcpy_htod(&self, h: CtxHandle, dst: u64, src: &[u8]) -> Result<()> {
        let Some(pieces) = self.pieces(h, dst, src.len() as u64) else { return self.gpu.memcpy_htod(h, dst, src) };
        self.blocking(h, &pieces, |gpu, c, &(ptr, len)| {
            let at = (ptr - dst) as usize;
            let part = &src[at..at + len as usize];
            match c {
                None => self.gpu.ctx(h)?.copy_htod(&self.gpu.dev, ptr, part, Pitched::linear(len)),
                Some(c) => gpu.memcpy_htod(c, ptr, part),
            }
        })
    }

    /// See [`Gpu::memcpy_dtoh`]: from a split allocation, each piece from its owner.
    pub fn memcpy_dtoh(&self, h: CtxHandle, dst: &mut [u8], src: u64) -> Result<()> {
        let Some(pieces) = self.pieces(h, src, dst.len() as u64) else { return self.gpu.memcpy_dtoh(h, dst, src) };
        let mut rest: &mut [u8] = dst;
        let mut at = src;
        self.blocking(h, &pieces, |gpu, c, &(ptr, len)| {
            let skip = (ptr - at) as usize;
            let (part, tail) = core::mem::take(&mut rest)[skip..].split_at_mut(len as usize);
            rest = tail;
            at = ptr + len;
            match c {
                None => self.gpu.ctx(h)?.copy_dtoh(&self.gpu.dev, part, ptr, Pitched::linear(len)),
                Some(c) => gpu.memcpy_dtoh(c, part, ptr),
            }
        })
    }

    /// See [`Gpu::memcpy_htod_2d`]: each GPU's rows by its copy engine, one owner after
    /// another.
    pub fn memcpy_htod_2d(&self, h: CtxHandle, dst: u64, src: &[u8], shape: Pitched) -> Result<()> {
        let Some(parts) = self.rows(h, dst, shape.dst_pitch, (shape.width, shape.height)) else {
            return self.gpu.memcpy_htod_2d(h, dst, src, shape);
        };
        self.blocking(h, &parts, |gpu, c, r| {
            let (d, from, part) = r.of(dst, 0, shape);
            let src = src.get(from as usize..).ok_or(CuError::InvalidValue)?;
            match c {
                None => self.gpu.ctx(h)?.copy_htod(&self.gpu.dev, d, src, part),
                Some(c) => gpu.memcpy_htod_2d(c, d, src, part),
            }
        })
    }

    /// See [`Gpu::memcpy_dtoh_2d`]: each GPU's rows by its copy engine, one owner after
    /// another.
    pub fn memcpy_dtoh_2d(&self, h: CtxHandle, dst: &mut [u8], src: u64, shape: Pitched) -> Result<()> {
        let flipped = Pitched { src_pitch: shape.dst_pitch, dst_pitch: shape.src_pitch, ..shape };
        let Some(parts) = self.rows(h, src, shape.src_pitch, (shape.width, shape.height)) else {
            return self.gpu.memcpy_dtoh_2d(h, dst, src, shape);
        };
        self.blocking(h, &parts, |gpu, c, r| {
            let (s, to, part) = r.of(src, 0, flipped);
            let part = Pitched { src_pitch: part.dst_pitch, dst_pitch: part.src_pitch, ..part };
            let dst = dst.get_mut(to as usize..).ok_or(CuError::InvalidValue)?;
            match c {
                None => self.gpu.ctx(h)?.copy_dtoh(&self.gpu.dev, dst, s, part),
                Some(c) => gpu.memcpy_dtoh_2d(c, dst, s, part),
            }
        })
    }

    /// See [`Gpu::memcpy_2d`]: each GPU's rows of the destination by its copy engine.
    pub fn memcpy_2d(&self, h: CtxHandle, s: StreamHandle, dst: u64, src: u64, shape: Pitched) -> Result<Fence> {
        let Some(parts) = self.rows(h, dst, shape.dst_pitch, (shape.width, shape.height)) else {
            return self.gpu.memcpy_2d(h, s, dst, src, shape);
        };
        self.split(h, s, &parts, |gpu, c, fs, _, r| {
            let (d, from, part) = r.of(dst, src, shape);
            gpu.with_objs(c, &[fs.named()], |dev, x| x.copy(dev, fs.local(), d, from, part))
        })
    }

    /// See [`Gpu::memcpy`]: each page of the destination by its owner's copy engine.
    pub fn memcpy(&self, h: CtxHandle, s: StreamHandle, dst: u64, src: u64, bytes: u64) -> Result<Fence> {
        let Some(pieces) = self.pieces(h, dst, bytes) else { return self.gpu.memcpy(h, s, dst, src, bytes) };
        self.gpu.with_objs(h, &[s.named()], |_, c| c.check_range(src, bytes, false))?;
        self.split(h, s, &pieces, |gpu, c, fs, _, &(d, len)| {
            let src = src + (d - dst);
            gpu.with_objs(c, &[fs.named()], |dev, x| x.copy(dev, fs.local(), d, src, Pitched::linear(len)))
        })
    }

    /// See [`Gpu::memset`]: each page of the destination by its owner's copy engine.
    pub fn memset(&self, h: CtxHandle, s: StreamHandle, dst: u64, value: MemsetValue, count: u64) -> Result<Fence> {
        let bytes = count.checked_mul(value.size()).ok_or(CuError::InvalidValue)?;
        let pieces = self.pieces(h, dst, bytes).filter(|_| dst.is_multiple_of(value.size()));
        let Some(pieces) = pieces else { return self.gpu.memset(h, s, dst, value, count) };
        self.split(h, s, &pieces, |gpu, c, fs, _, &(d, len)| {
            let n = len / value.size();
            gpu.with_objs(c, &[fs.named()], |dev, x| x.memset(dev, fs.local(), d, value, (n, 1, 0)))
        })
    }

    /// See [`Gpu::memset_2d`]: each GPU's rows by its copy engine.
    pub fn memset_2d(
        &self,
        h: CtxHandle,
        s: StreamHandle,
        dst: u64,
        pitch: u64,
        value: MemsetValue,
        (width, height): (u64, u64),
    ) -> Result<Fence> {
        let size = value.size();
        let row = width.saturating_mul(size);
        let aligned = dst.is_multiple_of(size) && (height <= 1 || (pitch.is_multiple_of(size) && pitch >= row));
        let parts = self.rows(h, dst, pitch, (row, height)).filter(|_| aligned && row != u64::MAX);
        let Some(parts) = parts else { return self.gpu.memset_2d(h, s, dst, pitch, value, (width, height)) };
        self.split(h, s, &parts, |gpu, c, fs, _, r| {
            let shape = Pitched { width: row, height, src_pitch: pitch, dst_pitch: pitch };
            let (d, _, part) = r.of(dst, 0, shape);
            let rows = (part.width / size, part.height, pitch);
            gpu.with_objs(c, &[fs.named()], |dev, x| x.memset(dev, fs.local(), d, value, rows))
        })
    }

    /// The pieces of `[ptr, ptr + len)` by owner, if it lies in a split allocation:
    /// (GPU, (device pointer, bytes)) in address order, where GPU None is the first.
    fn pieces(&self, h: CtxHandle, ptr: u64, len: u64) -> Option<Vec<(Option<usize>, Span)>> {
        let g = self.gang.get()?;
        let ctxs = g.ctxs.lock();
        let ctx = ctxs.get(&h.0)?;
        let (&base, pieces) = ctx.allocs.range(..=ptr).next_back()?;
        let total: u64 = pieces.iter().map(|p| p.2).sum();
        if ptr.checked_add(len)? > base + total || len == 0 {
            return None;
        }
        let mut out = Vec::new();
        let mut at = base;
        for &(m, _, bytes) in pieces {
            let (lo, hi) = (ptr.max(at), (ptr + len).min(at + bytes));
            if lo < hi {
                out.push((m.checked_sub(1), (lo, hi - lo)));
            }
            at += bytes;
        }
        Some(out)
    }

    /// The rows of a 2D region of a split allocation (`height` rows of `width` bytes from
    /// `dst`, `pitch` bytes apart) by owner: runs of whole rows in one GPU's piece, and the
    /// parts of each row that straddles two pieces. None where the region is not in one
    /// split allocation.
    fn rows(
        &self,
        h: CtxHandle,
        dst: u64,
        pitch: u64,
        (width, height): (u64, u64),
    ) -> Option<Vec<(Option<usize>, Rows)>> {
        // Rows that overlap (a pitch under the width) are no region of rows: the caller's
        // usual path checks the shape.
        if self.gang.get().is_none() || width == 0 || (height > 1 && pitch < width) {
            return None;
        }
        let mut out: Vec<(Option<usize>, Rows)> = Vec::new();
        for row in 0..height {
            let start = dst.checked_add(row.checked_mul(pitch)?)?;
            let pieces = self.pieces(h, start, width)?;
            match pieces[..] {
                [(owner, _)] => match out.last_mut() {
                    Some((o, r)) if *o == owner && r.span.is_none() && r.row + r.rows == row => r.rows += 1,
                    _ => out.push((owner, Rows { row, rows: 1, span: None })),
                },
                _ => out.extend(
                    pieces.iter().map(|&(o, (d, len))| (o, Rows { row, rows: 1, span: Some((d - start, len)) })),
                ),
            }
        }
        Some(out)
    }

    /// Run a blocking copy's pieces in order, each on its owner (the first GPU: context
    /// None), after the default stream's earlier work (the legacy stream's order).
    fn blocking<T>(
        &self,
        h: CtxHandle,
        pieces: &Parts<T>,
        mut each: impl FnMut(&Gpu<P>, Option<CtxHandle>, &T) -> Result<()>,
    ) -> Result<()> {
        let g = self.gang.get().ok_or(CuError::Unknown)?;
        let others = self.others(g, h)?;
        let (_, before) = self.gpu.with_ctx(h, |gpu, c| c.mark(gpu, 0))?;
        before.wait(&self.gpu.dev)?;
        for (owner, part) in pieces {
            match *owner {
                None => each(&self.gpu, None, part)?,
                Some(m) => each(&g.others[m], Some(others[m]), part)?,
            }
        }
        self.printf_flush(h);
        Ok(())
    }

    /// Work of stream `s` of context `h` in parts, each on its GPU (`parts`: owner, None
    /// for the first GPU, and what `op` takes: a launch's block range, a copy's destination
    /// and bytes, a 2D operation's rows). Stream `s` releases a fence that each other
    /// GPU's part acquires first, then acquires each of those parts' fences and releases
    /// its own, so that `s` alone orders the whole. `op` queues one part: (GPU, its
    /// context, its stream, owner, the part); the first GPU's parts go on `s` itself.
    pub(super) fn split<T>(
        &self,
        h: CtxHandle,
        s: StreamHandle,
        parts: &Parts<T>,
        op: impl Fn(&Gpu<P>, CtxHandle, StreamHandle, Option<usize>, &T) -> Result<Fence>,
    ) -> Result<Fence> {
        let g: &Gang<P> = self.gang.get().ok_or(CuError::Unknown)?;
        let others = self.others(g, h)?;
        let streams = self.streams(g, h, s)?;
        let (_, before) = self.gpu.with_objs(h, &[s.named()], |gpu, c| c.mark(gpu, s.local()))?;
        let mut after = Vec::new();
        for (owner, part) in parts {
            match *owner {
                None => {
                    op(&self.gpu, h, s, None, part)?;
                }
                Some(m) => {
                    let (o, c, fs) = (&g.others[m], others[m], streams[m]);
                    o.with_objs(c, &[fs.named()], |gpu, x| x.acquire_foreign(gpu, fs.local(), &before))?;
                    op(o, c, fs, *owner, part)?;
                    after.push(o.with_objs(c, &[fs.named()], |gpu, x| x.mark(gpu, fs.local()))?.1);
                }
            }
        }
        self.gpu.with_objs(h, &[s.named()], |gpu, c| {
            for r in &after {
                c.acquire_foreign(gpu, s.local(), r)?;
            }
            c.mark(gpu, s.local()).map(|(f, _)| f)
        })
    }
}
