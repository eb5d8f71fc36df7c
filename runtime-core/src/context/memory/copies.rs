//! Copies and memsets of a context's memory: through the copy engine, host data staged in
//! DMA memory (double-buffered), memsets with the remap unit and a constant component.

use super::Backing;
use crate::channel::{Channel, Cmd, Fence, Release};
use crate::context::{Context, Inner};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use hw::class::addr40;
use hw::class::{CopySemaphore, LaunchDma, Layout, RemapComponents, RemapSrc, TransferType, copy, subch};

/// Part of a staged host copy (see [`Pitched::pieces`]).
#[derive(Clone, Copy)]
pub(crate) struct Piece {
    pub(crate) row: u64,
    pub(crate) rows: u64,
    pub(crate) off: u64,
    pub(crate) len: u64,
}

/// The largest piece one copy-engine launch moves.
const LAUNCH_MAX: u64 = 1 << 30;

/// The value of a memset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemsetValue {
    /// cuMemsetD8.
    U8(u8),
    /// cuMemsetD16.
    U16(u16),
    /// cuMemsetD32.
    U32(u32),
}

impl MemsetValue {
    /// Bytes of one element.
    pub fn size(self) -> u64 {
        match self {
            Self::U8(_) => 1,
            Self::U16(_) => 2,
            Self::U32(_) => 4,
        }
    }
    fn bits(self) -> u32 {
        match self {
            Self::U8(v) => v as u32,
            Self::U16(v) => v as u32,
            Self::U32(v) => v,
        }
    }
}

/// The shape of a pitched (2D) copy: `height` rows of `width` bytes, the rows
/// `src_pitch` bytes apart in the source and `dst_pitch` in the destination. A linear copy
/// is one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pitched {
    /// Bytes per row.
    pub width: u64,
    /// Rows.
    pub height: u64,
    /// Bytes from one source row to the next.
    pub src_pitch: u64,
    /// Bytes from one destination row to the next.
    pub dst_pitch: u64,
}

impl Pitched {
    /// A linear copy of `bytes`.
    pub fn linear(bytes: u64) -> Self {
        Self { width: bytes, height: 1, src_pitch: bytes, dst_pitch: bytes }
    }

    /// Whether the copy moves nothing.
    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// The bytes from the first row's start to the last row's end at `pitch`;
    /// INVALID_VALUE on overflow.
    pub fn extent(&self, pitch: u64) -> Result<u64> {
        if self.is_empty() {
            return Ok(0);
        }
        (self.height - 1).checked_mul(pitch).and_then(|b| b.checked_add(self.width)).ok_or(CuError::InvalidValue)
    }

    /// Rows that do not overlap (each pitch at least the width when there are several
    /// rows) and pitches the copy engine's 32-bit registers hold: else INVALID_VALUE.
    fn check(&self) -> Result<()> {
        let pitch_ok = |p: u64| self.height <= 1 || (p >= self.width && p <= u32::MAX as u64);
        if pitch_ok(self.src_pitch) && pitch_ok(self.dst_pitch) { Ok(()) } else { Err(CuError::InvalidValue) }
    }

    /// The pieces a host copy stages through buffers of `chunk` bytes: whole rows
    /// (`rows` of them from `row`) when a row fits, else parts of one row; each piece is
    /// `len` bytes of each row from byte `off`.
    pub(crate) fn pieces(&self, chunk: u64) -> impl Iterator<Item = Piece> + '_ {
        let (w, h) = (self.width, if self.is_empty() { 0 } else { self.height });
        let per_row = w.div_ceil(chunk).max(1);
        let rows_per = if w <= chunk { (chunk / w.max(1)).max(1) } else { 1 };
        let n = if w <= chunk { h.div_ceil(rows_per) } else { h * per_row };
        (0..n).map(move |i| {
            if w <= chunk {
                let row = i * rows_per;
                Piece { row, rows: rows_per.min(h - row), off: 0, len: w }
            } else {
                let off = (i % per_row) * chunk;
                Piece { row: i / per_row, rows: 1, off, len: chunk.min(w - off) }
            }
        })
    }
}

impl Inner {
    /// Check that `[ptr, ptr + len)` lies inside one allocation (device or pinned host),
    /// or in VMM mappings that follow one another without a gap, and that each mapping
    /// grants the access (`write` or read).
    pub(crate) fn check_range(&self, ptr: u64, len: u64, write: bool) -> Result<()> {
        let end = ptr.checked_add(len).ok_or(CuError::InvalidValue)?;
        let mut at = ptr;
        loop {
            let (&base, a) = self.allocs.range(..=at).next_back().ok_or(CuError::InvalidValue)?;
            let limit = base + a.size;
            let mapped = match &a.backing {
                Backing::Mapped(m) if !m.access.allows(write) => return Err(CuError::InvalidValue),
                Backing::Mapped(_) => true,
                _ => false,
            };
            if end <= limit {
                return Ok(());
            }
            let next_mapped = self.allocs.get(&limit).is_some_and(|n| matches!(n.backing, Backing::Mapped(_)));
            if !mapped || !next_mapped || at > limit {
                return Err(CuError::InvalidValue);
            }
            at = limit;
        }
    }

    /// The start of a blocking host copy of `len` bytes at device pointer `ptr`: the range
    /// lies in one allocation (an empty copy may point anywhere), and the default stream
    /// waits for the blocking streams.
    fn host_copy_start<P: Platform>(&mut self, gpu: &Device<P>, ptr: u64, len: u64, write: bool) -> Result<()> {
        self.check_range(ptr, len, write).or(if len == 0 { Ok(()) } else { Err(CuError::InvalidValue) })?;
        self.ordered(gpu, 0).map(drop)
    }

    /// Queue a copy of `shape` from `src` to `dst` on the default stream (an L2
    /// write-back first when `flush`); returns what to wait for.
    fn queue_copy<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        src: u64,
        dst: u64,
        shape: Pitched,
        flush: bool,
    ) -> Result<Release> {
        let ch = self.live()?;
        if flush {
            // Kernels leave dirty lines in the L2: write them back before reading VRAM.
            let mut cmd = Cmd::new();
            l2_flush(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
        }
        let f = copy_pitched(gpu, ch, dst, src, shape)?;
        ch.release_of(f)
    }

    /// Queue a copy of `shape` between two device pointers of the context on stream `s`;
    /// returns the stream's fence.
    pub(crate) fn copy<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        s: u64,
        dst: u64,
        src: u64,
        shape: Pitched,
    ) -> Result<Fence> {
        shape.check()?;
        if shape.is_empty() {
            return Ok(self.chan(s)?.last_fence());
        }
        self.check_range(src, shape.extent(shape.src_pitch)?, false)?;
        self.check_range(dst, shape.extent(shape.dst_pitch)?, true)?;
        // Coherence (gem5's flush forwarding): a copy to memory another agent reads (the
        // host's, a peer's) writes the L2's dirty lines back first, as before a copy to
        // the host, so that kernels still running leave nothing it would miss.
        let elsewhere = self
            .allocs
            .range(..=dst)
            .next_back()
            .is_some_and(|(_, a)| matches!(a.backing, Backing::Host(_) | Backing::Peer | Backing::Split));
        let ch = self.ordered(gpu, s)?;
        if elsewhere {
            let mut cmd = Cmd::new();
            l2_flush(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
        }
        copy_pitched(gpu, ch, dst, src, shape)
    }

    /// Queue a memset on stream `s`: `height` rows of `width` elements at `dst`, `pitch`
    /// bytes apart (one row: pitch unused); returns the stream's fence. The pointer, and
    /// the pitch when there are several rows, must be multiples of the element size, and
    /// the rows must not overlap: else INVALID_VALUE.
    pub(crate) fn memset<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        s: u64,
        dst: u64,
        value: MemsetValue,
        (width, height, pitch): (u64, u64, u64),
    ) -> Result<Fence> {
        let size = value.size();
        let row = width.checked_mul(size).ok_or(CuError::InvalidValue)?;
        let shape = Pitched { width: row, height, src_pitch: pitch, dst_pitch: pitch };
        if !dst.is_multiple_of(size) || (height > 1 && !pitch.is_multiple_of(size)) {
            return Err(CuError::InvalidValue);
        }
        shape.check()?;
        if shape.is_empty() {
            return Ok(self.chan(s)?.last_fence());
        }
        self.check_range(dst, shape.extent(pitch)?, true)?;
        let ch = self.ordered(gpu, s)?;
        let remap = RemapComponents::new()
            .with_dst_x(RemapSrc::ConstA)
            .with_dst_y(RemapSrc::NoWrite)
            .with_dst_z(RemapSrc::NoWrite)
            .with_dst_w(RemapSrc::NoWrite)
            .with_component_size_minus_one((size - 1) as u8);
        let mut last = ch.last_fence();
        // LAUNCH_MAX is a multiple of every element size, so pieces hold whole elements.
        for p in shape.pieces(LAUNCH_MAX) {
            let d = dst + p.row * pitch + p.off;
            let multi = p.rows > 1;
            let l: u32 = LaunchDma::from(launch(true, true)).with_multi_line(multi).into();
            let mut cmd = Cmd::new();
            cmd.incr(subch::COPY0, copy::SET_REMAP_CONST_A, &[value.bits()])
                .and_then(|_| cmd.incr(subch::COPY0, copy::SET_REMAP_COMPONENTS, &[remap.into()]))
                .and_then(|_| cmd.incr(subch::COPY0, copy::OFFSET_OUT_UPPER, &[addr40::hi(d), addr40::lo(d)]))
                .and_then(|_| {
                    if multi {
                        cmd.incr(subch::COPY0, copy::PITCH_OUT, &[pitch as u32, (p.len / size) as u32, p.rows as u32])
                    } else {
                        cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[(p.len / size) as u32])
                    }
                })
                .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[l]))
                .map_err(|_| CuError::Unknown)?;
            last = ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            gpu.count_job(ch.chid, true);
        }
        Ok(last)
    }
}

impl<P: Platform> Context<P> {
    /// Copy `shape` from host memory `src` (rows `shape.src_pitch` apart) to the device;
    /// returns when `src` may be reused. The copy holds the context's staging buffers
    /// (host copies of a context take turns, as on CUDA's legacy stream), never the
    /// context's lock while it waits. Rows are packed into the staging buffers, so a
    /// pitched copy of short rows takes one copy-engine launch per buffer, not per row.
    pub(crate) fn copy_htod(&self, gpu: &Device<P>, dst: u64, src: &[u8], shape: Pitched) -> Result<()> {
        shape.check()?;
        if (src.len() as u64) < shape.extent(shape.src_pitch)? {
            return Err(CuError::InvalidValue);
        }
        let bufs = self.staging();
        self.with(gpu, |c| c.host_copy_start(gpu, dst, shape.extent(shape.dst_pitch)?, true))?;
        let chunk = bufs[0].buf.len() as u64;
        let mut pending: [Option<Release>; 2] = [None, None];
        for (i, p) in shape.pieces(chunk).enumerate() {
            let s = &bufs[i % 2];
            if let Some(w) = pending[i % 2].take() {
                w.wait(gpu)?; // the buffer's previous piece has been copied out of it
            }
            for j in 0..p.rows {
                let at = ((p.row + j) * shape.src_pitch + p.off) as usize;
                gpu.platform.copy_from_user(&s.buf.mem, (j * p.len) as usize, &src[at..at + p.len as usize])?;
            }
            let to = dst + p.row * shape.dst_pitch + p.off;
            let part = Pitched { width: p.len, height: p.rows, src_pitch: p.len, dst_pitch: shape.dst_pitch };
            pending[i % 2] = Some(self.with(gpu, |c| c.queue_copy(gpu, s.va, to, part, false))?);
        }
        pending.iter().flatten().try_for_each(|w| w.wait(gpu))
    }

    /// Copy `shape` from the device to host memory `dst` (rows `shape.dst_pitch` apart);
    /// waits for earlier work on the context, holding the staging buffers but not the
    /// context's lock.
    pub(crate) fn copy_dtoh(&self, gpu: &Device<P>, dst: &mut [u8], src: u64, shape: Pitched) -> Result<()> {
        shape.check()?;
        if (dst.len() as u64) < shape.extent(shape.dst_pitch)? {
            return Err(CuError::InvalidValue);
        }
        let bufs = self.staging();
        self.with(gpu, |c| c.host_copy_start(gpu, src, shape.extent(shape.src_pitch)?, false))?;
        let chunk = bufs[0].buf.len() as u64;
        // Queue piece i into staging buffer i % 2, then drain piece i - 1.
        let drain = |dst: &mut [u8], (i, p, w): (usize, Piece, Release)| -> Result<()> {
            w.wait(gpu)?;
            for j in 0..p.rows {
                let at = ((p.row + j) * shape.dst_pitch + p.off) as usize;
                let mem = &bufs[i % 2].buf.mem;
                gpu.platform.copy_to_user(&mut dst[at..at + p.len as usize], mem, (j * p.len) as usize)?;
            }
            Ok(())
        };
        let mut pending: Option<(usize, Piece, Release)> = None;
        for (i, p) in shape.pieces(chunk).enumerate() {
            let from = src + p.row * shape.src_pitch + p.off;
            let part = Pitched { width: p.len, height: p.rows, src_pitch: shape.src_pitch, dst_pitch: p.len };
            let w = self.with(gpu, |c| c.queue_copy(gpu, from, bufs[i % 2].va, part, i == 0))?;
            if let Some(done) = pending.replace((i, p, w)) {
                drain(dst, done)?;
            }
        }
        pending.map_or(Ok(()), |done| drain(dst, done))
    }
}

pub(crate) fn launch(transfer: bool, remap: bool) -> u32 {
    LaunchDma::new()
        .with_transfer(if transfer { TransferType::NonPipelined } else { TransferType::None })
        .with_semaphore(CopySemaphore::None)
        .with_src_layout(Layout::Pitch)
        .with_dst_layout(Layout::Pitch)
        .with_remap(remap)
        .into()
}

/// MEM_OP L2_FLUSH_DIRTY: the device writes back its L2's dirty lines (the channel waits).
pub(crate) fn l2_flush(cmd: &mut Cmd) -> Result<()> {
    let b = hw::class::MemOpB::new().with_operation(hw::class::MemOp::L2FlushDirty);
    cmd.incr(0, hw::class::host::MEM_OP_A, &[0, b.into()]).map(|_| ()).map_err(|_| CuError::Unknown)
}

/// Queue copies of `shape` from `src` to `dst` (device pointers) on `ch`, each launch at
/// most LAUNCH_MAX bytes (groups of whole rows, or parts of one row when a row is longer);
/// returns the fence after the last.
fn copy_pitched<P: Platform>(gpu: &Device<P>, ch: &mut Channel, dst: u64, src: u64, shape: Pitched) -> Result<Fence> {
    let mut last = ch.last_fence();
    for p in shape.pieces(LAUNCH_MAX) {
        let mut cmd = Cmd::new();
        let from = src + p.row * shape.src_pitch + p.off;
        let to = dst + p.row * shape.dst_pitch + p.off;
        copy_cmd(&mut cmd, from, to, Pitched { width: p.len, height: p.rows, ..shape })?;
        last = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        gpu.count_job(ch.chid, true);
    }
    Ok(last)
}

/// One copy-engine launch of `shape` (multi-line when it has several rows).
fn copy_cmd(cmd: &mut Cmd, src: u64, dst: u64, shape: Pitched) -> Result<()> {
    let words = [addr40::hi(src), addr40::lo(src), addr40::hi(dst), addr40::lo(dst)];
    let multi = shape.height > 1;
    let l: u32 = LaunchDma::from(launch(true, false)).with_multi_line(multi).into();
    cmd.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &words)
        .and_then(|_| {
            if multi {
                let regs = [shape.src_pitch as u32, shape.dst_pitch as u32, shape.width as u32, shape.height as u32];
                cmd.incr(subch::COPY0, copy::PITCH_IN, &regs)
            } else {
                cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[shape.width as u32])
            }
        })
        .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[l]))
        .map_err(|_| CuError::Unknown)
}
