//! Copies between arrays and pitch-linear memory (device or staged host memory): copy-engine
//! launches with a block-linear side, one per slice.

use crate::channel::{Channel, Cmd, Fence};
use crate::context::Context;
use crate::context::memory::launch;
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use hw::class::{BlockSize, LaunchDma, Layout, Origin, addr40, copy, subch};
use hw::tex::BlockLinear;

/// One side of a copy with an array: pitch-linear memory, or a block-linear array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Surface {
    /// Rows `pitch` bytes apart, slices `slice` bytes apart, from `ptr`.
    Pitch { ptr: u64, pitch: u64, slice: u64 },
    /// An array's layers (or a 3D array's volume), `layer_bytes` apart.
    Block { va: u64, bl: BlockLinear, layer_bytes: u64, layered: bool },
}

/// A point of a surface: byte `at[0]` of row `at[1]` of slice `at[2]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub(crate) surf: Surface,
    pub(crate) at: [u64; 3],
}

impl Endpoint {
    /// The point `d` further on.
    fn offset(self, d: [u64; 3]) -> Self {
        Self { surf: self.surf, at: [self.at[0] + d[0], self.at[1] + d[1], self.at[2] + d[2]] }
    }

    /// The registers of this side of a one-slice launch: its address, and for a
    /// block-linear side the six SET_*_BLOCK_SIZE..ORIGIN words.
    fn regs(self) -> Result<(u64, Layout, u32, Option<[u32; 6]>)> {
        let [x, y, z] = self.at;
        match self.surf {
            Surface::Pitch { ptr, pitch, slice } => {
                let at = ptr + z * slice + y * pitch + x;
                Ok((at, Layout::Pitch, u32::try_from(pitch).map_err(|_| CuError::InvalidValue)?, None))
            }
            Surface::Block { va, bl, layer_bytes, layered } => {
                // Whole blocks to the left move the base: ORIGIN.x has 16 bits.
                let base = va + if layered { z * layer_bytes } else { 0 } + x / 64 * bl.block_bytes();
                let y16 = u16::try_from(y).map_err(|_| CuError::InvalidValue)?;
                let block = BlockSize::new().with_height(bl.gob_height).with_depth(bl.gob_depth).with_gob_height(1);
                let origin = Origin::new().with_x((x % 64) as u16).with_y(y16);
                let (depth, layer) = if layered { (1, 0) } else { (bl.depth, z) };
                let w = |v: u64| u32::try_from(v).map_err(|_| CuError::InvalidValue);
                let regs = [block.into(), w(bl.width)?, w(bl.height)?, w(depth)?, w(layer)?, origin.into()];
                Ok((base, Layout::BlockLinear, 0, Some(regs)))
            }
        }
    }
}

/// Queue the copy of `extent` (bytes per row, rows, slices) from `src` to `dst` on `ch`:
/// one multi-line launch per slice; returns the fence after the last.
pub(crate) fn copy_surfaces<P: Platform>(
    gpu: &Device<P>,
    ch: &mut Channel,
    src: Endpoint,
    dst: Endpoint,
    extent: [u64; 3],
) -> Result<Fence> {
    let mut last = ch.last_fence();
    let [w, h, d] = extent;
    if w == 0 || h == 0 || d == 0 {
        return Ok(last);
    }
    let (w32, h32) = (u32::try_from(w), u32::try_from(h));
    let (Ok(w32), Ok(h32)) = (w32, h32) else { return Err(CuError::InvalidValue) };
    for k in 0..d {
        let (s, sl, sp, sb) = src.offset([0, 0, k]).regs()?;
        let (t, tl, tp, tb) = dst.offset([0, 0, k]).regs()?;
        let l: u32 =
            LaunchDma::from(launch(true, false)).with_multi_line(true).with_src_layout(sl).with_dst_layout(tl).into();
        let mut cmd = Cmd::new();
        (|| {
            if let Some(r) = sb {
                cmd.incr(subch::COPY0, copy::SET_SRC_BLOCK_SIZE, &r)?;
            }
            if let Some(r) = tb {
                cmd.incr(subch::COPY0, copy::SET_DST_BLOCK_SIZE, &r)?;
            }
            cmd.incr(
                subch::COPY0,
                copy::OFFSET_IN_UPPER,
                &[addr40::hi(s), addr40::lo(s), addr40::hi(t), addr40::lo(t)],
            )?;
            cmd.incr(subch::COPY0, copy::PITCH_IN, &[sp, tp, w32, h32])?;
            cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[l])
        })()
        .map_err(|_| CuError::Unknown)?;
        last = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        gpu.count_job(ch.chid, true);
    }
    Ok(last)
}

impl<P: Platform> Context<P> {
    /// Copy `extent` between host memory and an array endpoint (`to_device`: from `host`,
    /// whose rows are `pitch` bytes apart and slices `slice` apart), staged through the
    /// context's buffers like any host copy; returns when the host memory may be reused
    /// (and, from the device, holds the data).
    pub(crate) fn copy_host_array(
        &self,
        gpu: &Device<P>,
        host: HostSide<'_>,
        (pitch, slice): (u64, u64),
        dev: Endpoint,
        extent: [u64; 3],
    ) -> Result<()> {
        let [w, h, d] = extent;
        if w == 0 || h == 0 || d == 0 {
            return Ok(());
        }
        let need = (d - 1) * slice + (h - 1) * pitch + w;
        let to_device = matches!(host, HostSide::From(_));
        let len = match &host {
            HostSide::From(b) => b.len(),
            HostSide::To(b) => b.len(),
        };
        if (len as u64) < need || (h > 1 && pitch < w) || (d > 1 && slice < (h - 1) * pitch + w) {
            return Err(CuError::InvalidValue);
        }
        let bufs = self.staging();
        self.with(gpu, |c| c.ordered(gpu, 0).map(drop))?;
        let chunk = bufs[0].buf.len() as u64;
        let shape = crate::context::memory::Pitched { width: w, height: h, src_pitch: pitch, dst_pitch: pitch };
        let mut host = host;
        let mut first = true;
        for k in 0..d {
            for p in shape.pieces(chunk) {
                let s = &bufs[0];
                let at = |j: u64| (k * slice + (p.row + j) * pitch + p.off) as usize;
                let staged = Endpoint { surf: Surface::Pitch { ptr: s.va, pitch: p.len, slice: 0 }, at: [0; 3] };
                let there = dev.offset([p.off, p.row, k]);
                let ext = [p.len, p.rows, 1];
                if let HostSide::From(src) = &host {
                    for j in 0..p.rows {
                        gpu.platform.copy_from_user(
                            &s.buf.mem,
                            (j * p.len) as usize,
                            &src[at(j)..at(j) + p.len as usize],
                        )?;
                    }
                }
                let flush = first && !to_device;
                first = false;
                let w = self.with(gpu, |c| {
                    let ch = c.live()?;
                    if flush {
                        let mut cmd = Cmd::new();
                        crate::context::memory::l2_flush(&mut cmd)?;
                        ch.submit(gpu, cmd.words())?;
                    }
                    let f = if to_device {
                        copy_surfaces(gpu, ch, staged, there, ext)?
                    } else {
                        copy_surfaces(gpu, ch, there, staged, ext)?
                    };
                    ch.release_of(f)
                })?;
                w.wait(gpu)?;
                if let HostSide::To(dst) = &mut host {
                    for j in 0..p.rows {
                        let a = at(j);
                        gpu.platform.copy_to_user(&mut dst[a..a + p.len as usize], &s.buf.mem, (j * p.len) as usize)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The host side of an array copy.
pub(crate) enum HostSide<'a> {
    /// Host memory the copy reads.
    From(&'a [u8]),
    /// Host memory the copy writes.
    To(&'a mut [u8]),
}
