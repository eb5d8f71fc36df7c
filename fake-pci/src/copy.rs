//! The copy engine (class 90B5, NVIDIA layout): pitch-linear copies between any mix of
//! VRAM and system memory through the channel's address space, multi-line (pitched)
//! transfers, the remap unit used for memsets (constant components of 1–4 bytes), and a
//! semaphore release and interrupt on completion.
//!
//! Timing (`DeviceConfig::copy_cycles`): a job occupies the engine for its fixed latency
//! plus the slower of the engine's own rate and the path its data takes (PCIe with its
//! latency for host memory, DRAM read and write for VRAM to VRAM, DRAM write for a fill).
//! Jobs run in launch order, and a job's data lands and its semaphore is written when it
//! completes.
//!
//! Either side may be a block-linear surface (SET_SRC/DST_BLOCK_SIZE, WIDTH, HEIGHT,
//! DEPTH, LAYER, ORIGIN: line `i` is row ORIGIN.y + i of slice LAYER from byte ORIGIN.x,
//! addressed through `hw::tex::BlockLinear`). A line that leaves its surface, a block shape
//! other than one GOB wide with 8-row GOBs, or a remapped block-linear copy is a launch
//! error.

use crate::config::CopyPath;
use crate::mmu::{AddressSpace, Fault, Memory, Tlb};
use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;
use hw::class::{
    BlockSize, CopyInterrupt, CopySemaphore, LaunchDma, Layout, Origin, PhysTarget, RemapComponents, RemapSrc,
    TransferType,
};
use hw::regs::Target;
use hw::tex::{BlockLinear, MAX_BLOCK_LOG2};

/// Methods latched by a channel for its copy object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyRegs {
    /// Semaphore address.
    pub sem_addr: u64,
    /// Semaphore payload.
    pub sem_payload: u32,
    /// Source address.
    pub src: u64,
    /// Destination address.
    pub dst: u64,
    /// Source pitch.
    pub pitch_in: u32,
    /// Destination pitch.
    pub pitch_out: u32,
    /// Line length (bytes, or components when remapping).
    pub line_length: u32,
    /// Line count.
    pub line_count: u32,
    /// Remap constant A.
    pub const_a: u32,
    /// Remap constant B.
    pub const_b: u32,
    /// Remap components.
    pub remap: u32,
    /// Block-linear source surface.
    pub src_bl: BlRegs,
    /// Block-linear destination surface.
    pub dst_bl: BlRegs,
    /// SET_SRC_PHYS_MODE and SET_DST_PHYS_MODE ([`hw::class::PhysMode`]).
    pub src_phys: u32,
    /// See `src_phys`.
    pub dst_phys: u32,
}

/// The block-linear surface registers of one side of a copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlRegs {
    /// Block shape ([`BlockSize`]).
    pub block: u32,
    /// Width in bytes.
    pub width: u32,
    /// Height in rows.
    pub height: u32,
    /// Depth in slices.
    pub depth: u32,
    /// Slice the copy touches.
    pub layer: u32,
    /// First byte and row ([`Origin`]).
    pub origin: u32,
}

impl BlRegs {
    /// The surface, its first byte, row and slice, if the block shape is supported.
    fn surface(&self) -> Option<(BlockLinear, u64, u64, u64)> {
        let b = BlockSize::from(self.block);
        let o = Origin::from(self.origin);
        if b.width() != 0 || b.gob_height() != 1 || b.height() > MAX_BLOCK_LOG2 || b.depth() > MAX_BLOCK_LOG2 {
            return None;
        }
        let bl = BlockLinear {
            width: self.width as u64,
            height: self.height as u64,
            depth: self.depth as u64,
            gob_height: b.height(),
            gob_depth: b.depth(),
        };
        Some((bl, o.x() as u64, o.y() as u64, self.layer as u64))
    }
}

/// One side of a line: pitch-linear from an address, or a row of a block-linear surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Pitch,
    Block(BlockLinear, u64, u64, u64),
}

impl CopyRegs {
    /// Latch a copy method. Returns false for a method the class does not have.
    pub fn set(&mut self, method: u32, data: u32) -> bool {
        use hw::class::copy::*;
        let hi = |v: u64| hw::class::addr40::with_hi(v, data);
        let lo = |v: u64| hw::class::addr40::with_lo(v, data);
        match method {
            SET_SEMAPHORE_A => self.sem_addr = hi(self.sem_addr),
            SET_SEMAPHORE_B => self.sem_addr = lo(self.sem_addr),
            SET_SEMAPHORE_PAYLOAD => self.sem_payload = data,
            OFFSET_IN_UPPER => self.src = hi(self.src),
            OFFSET_IN_LOWER => self.src = lo(self.src),
            OFFSET_OUT_UPPER => self.dst = hi(self.dst),
            OFFSET_OUT_LOWER => self.dst = lo(self.dst),
            PITCH_IN => self.pitch_in = data,
            PITCH_OUT => self.pitch_out = data,
            LINE_LENGTH_IN => self.line_length = data,
            LINE_COUNT => self.line_count = data,
            SET_REMAP_CONST_A => self.const_a = data,
            SET_REMAP_CONST_B => self.const_b = data,
            SET_REMAP_COMPONENTS => self.remap = data,
            SET_DST_BLOCK_SIZE => self.dst_bl.block = data,
            SET_DST_WIDTH => self.dst_bl.width = data,
            SET_DST_HEIGHT => self.dst_bl.height = data,
            SET_DST_DEPTH => self.dst_bl.depth = data,
            SET_DST_LAYER => self.dst_bl.layer = data,
            SET_DST_ORIGIN => self.dst_bl.origin = data,
            SET_SRC_BLOCK_SIZE => self.src_bl.block = data,
            SET_SRC_WIDTH => self.src_bl.width = data,
            SET_SRC_HEIGHT => self.src_bl.height = data,
            SET_SRC_DEPTH => self.src_bl.depth = data,
            SET_SRC_LAYER => self.src_bl.layer = data,
            SET_SRC_ORIGIN => self.src_bl.origin = data,
            SET_SRC_PHYS_MODE => self.src_phys = data,
            SET_DST_PHYS_MODE => self.dst_phys = data,
            _ => return false,
        }
        true
    }
}

/// How the destination bytes of one pixel are produced when remapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Remap {
    comp: usize,
    src_comps: usize,
    dst_comps: usize,
    sel: [RemapSrc; 4],
}

/// A validated transfer waiting in the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyJob {
    /// Channel that launched it.
    pub chid: u32,
    /// Its address space.
    pub space: AddressSpace,
    regs: CopyRegs,
    lines: u64,
    /// Destination bytes per line.
    line_bytes: u64,
    remap: Option<Remap>,
    src: Side,
    dst: Side,
    semaphore: CopySemaphore,
    interrupt: bool,
    transfer: bool,
    /// The memory of a physical source or destination address (None: virtual).
    src_phys: Option<Target>,
    dst_phys: Option<Target>,
    /// Cycle at which the job starts moving data.
    pub start_at: u64,
    /// Cycle at which the job completes.
    pub done_at: u64,
    /// The path its data takes (set at launch).
    pub path: CopyPath,
    /// Which memories it joins (set at launch).
    pub kind: CopyKind,
}

/// Which memories a copy joins, as CUDA's tools name copies: host (system memory) to
/// device (VRAM), device to host, device to device, host to host, or a fill (memset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CopyKind {
    /// System memory to VRAM.
    HtoD,
    /// VRAM to system memory.
    DtoH,
    /// VRAM to VRAM.
    #[default]
    DtoD,
    /// System memory to system memory.
    HtoH,
    /// No source: a fill.
    Memset,
    /// One GPU's VRAM and another's (a peer copy, over the interconnect).
    PtoP,
}

impl CopyKind {
    /// The name CUDA's tools give it (`HtoD`, ..., `Memset`).
    pub fn name(self) -> &'static str {
        match self {
            Self::HtoD => "HtoD",
            Self::DtoH => "DtoH",
            Self::DtoD => "DtoD",
            Self::HtoH => "HtoH",
            Self::Memset => "Memset",
            Self::PtoP => "PtoP",
        }
    }
}

impl CopyJob {
    /// Validate a LAUNCH_DMA word against the latched methods. `None` for launches the
    /// engine rejects (reserved encodings, block-linear layouts, overflowing sizes).
    pub fn new(chid: u32, space: AddressSpace, regs: CopyRegs, launch: u32) -> Option<Self> {
        let l = LaunchDma::from(launch);
        let transfer = match l.transfer_or_err().ok()? {
            TransferType::None => false,
            TransferType::Pipelined | TransferType::NonPipelined => true,
            TransferType::Invalid => return None,
        };
        let semaphore = l.semaphore_or_err().ok()?;
        let interrupt = match l.interrupt_or_err().ok()? {
            CopyInterrupt::None => false,
            CopyInterrupt::Blocking | CopyInterrupt::NonBlocking => true,
            CopyInterrupt::Invalid => return None,
        };
        if semaphore == CopySemaphore::Invalid {
            return None;
        }
        let lines = if l.multi_line() { regs.line_count as u64 } else { 1 };
        // A block-linear side: every line must stay inside its surface.
        let side = |layout: Layout, r: &BlRegs| -> Option<Side> {
            if layout == Layout::Pitch || !transfer {
                return Some(Side::Pitch);
            }
            let (bl, x, y, z) = r.surface()?;
            let fits = x + regs.line_length as u64 <= bl.width && y + lines <= bl.height && z < bl.depth;
            (fits && !l.remap()).then_some(Side::Block(bl, x, y, z))
        };
        let src = side(l.src_layout_or_err().ok()?, &regs.src_bl)?;
        let dst = side(l.dst_layout_or_err().ok()?, &regs.dst_bl)?;
        let remap = if l.remap() {
            let r = RemapComponents::from(regs.remap);
            let sel = [r.dst_x_or_err().ok()?, r.dst_y_or_err().ok()?, r.dst_z_or_err().ok()?, r.dst_w_or_err().ok()?];
            if sel.contains(&RemapSrc::Invalid) {
                return None;
            }
            Some(Remap {
                comp: r.component_size_minus_one() as usize + 1,
                src_comps: r.src_components_minus_one() as usize + 1,
                dst_comps: r.dst_components_minus_one() as usize + 1,
                sel,
            })
        } else {
            None
        };
        // Physical addresses: pitch-linear lines, no remapping.
        let phys = |on: bool, mode: u32| -> Option<Option<Target>> {
            if !on {
                return Some(None);
            }
            match hw::class::PhysMode::from(mode).target_or_err().ok()? {
                PhysTarget::LocalFb => Some(Some(Target::Vram)),
                PhysTarget::CoherentSysmem => Some(Some(Target::SysCoherent)),
                PhysTarget::NoncoherentSysmem => Some(Some(Target::SysNonCoherent)),
                PhysTarget::Invalid => None,
            }
        };
        let (src_phys, dst_phys) = (phys(l.src_physical(), regs.src_phys)?, phys(l.dst_physical(), regs.dst_phys)?);
        if (src_phys.is_some() || dst_phys.is_some()) && (remap.is_some() || src != Side::Pitch || dst != Side::Pitch) {
            return None;
        }
        let pixel = remap.map_or(1, |r| (r.comp * r.dst_comps) as u64);
        let line_bytes = regs.line_length as u64 * pixel;
        Some(Self {
            chid,
            space,
            regs,
            lines,
            line_bytes,
            remap,
            src,
            dst,
            semaphore,
            interrupt,
            transfer,
            src_phys,
            dst_phys,
            start_at: 0,
            done_at: 0,
            path: CopyPath::VramFill,
            kind: CopyKind::Memset,
        })
    }

    /// Bytes the job writes.
    pub fn bytes(&self) -> u64 {
        if self.transfer { self.lines * self.line_bytes } else { 0 }
    }

    /// The path the data takes, PCIe when either side is system memory, the link to a
    /// peer when either side is another GPU's VRAM (then with that link's figures), and
    /// which memories it joins. An address that does not translate counts as VRAM (the
    /// fault comes at execution).
    pub fn route(&self, mem: &Memory, tlb: &mut Tlb) -> (CopyPath, CopyKind, Option<crate::peer::Link>) {
        use hw::regs::Target;
        let peer = |va: u64, write: bool, tlb: &mut Tlb| {
            if if write { self.dst_phys.is_some() } else { self.src_phys.is_some() } {
                return None; // a physical side is this GPU's VRAM or system memory
            }
            match tlb.translate(mem, &self.space, va, write) {
                Ok((Target::Peer, pa)) => Some(mem.peers.link_of(pa).unwrap_or_default()),
                _ => None,
            }
        };
        let sys = |va: u64, write: bool, tlb: &mut Tlb| {
            let phys = if write { self.dst_phys } else { self.src_phys };
            match phys {
                Some(t) => matches!(t, Target::SysCoherent | Target::SysNonCoherent),
                None => tlb
                    .translate(mem, &self.space, va, write)
                    .is_ok_and(|(t, _)| matches!(t, Target::SysCoherent | Target::SysNonCoherent)),
            }
        };
        let reads_src = self.remap.is_none_or(|r| {
            r.sel[..r.dst_comps]
                .iter()
                .any(|s| matches!(s, RemapSrc::SrcX | RemapSrc::SrcY | RemapSrc::SrcZ | RemapSrc::SrcW))
        });
        if !self.transfer || !reads_src {
            let link = peer(self.regs.dst, true, tlb);
            return (if link.is_some() { CopyPath::Peer } else { CopyPath::VramFill }, CopyKind::Memset, link);
        }
        if let Some(link) = peer(self.regs.src, false, tlb).or_else(|| peer(self.regs.dst, true, tlb)) {
            return (CopyPath::Peer, CopyKind::PtoP, Some(link));
        }
        let (path, kind) = match (sys(self.regs.src, false, tlb), sys(self.regs.dst, true, tlb)) {
            (false, false) => (CopyPath::VramToVram, CopyKind::DtoD),
            (true, false) => (CopyPath::Pcie, CopyKind::HtoD),
            (false, true) => (CopyPath::Pcie, CopyKind::DtoH),
            (true, true) => (CopyPath::Pcie, CopyKind::HtoH),
        };
        (path, kind, None)
    }

    /// Whether completion raises the non-stall interrupt.
    pub fn interrupt(&self) -> bool {
        self.interrupt
    }

    /// Move the data and write the semaphore. `now_ns` is the completion timestamp.
    pub fn execute(&self, mem: &mut Memory, tlb: &mut Tlb, scratch: &mut Vec<u8>, now_ns: u64) -> Result<(), Fault> {
        if self.transfer {
            for line in 0..self.lines {
                let src = self.regs.src.wrapping_add(line * self.regs.pitch_in as u64);
                let dst = self.regs.dst.wrapping_add(line * self.regs.pitch_out as u64);
                match (self.remap, self.src, self.dst) {
                    (Some(r), ..) => self.remap_line(mem, tlb, r, src, dst, scratch)?,
                    (None, Side::Pitch, Side::Pitch) if self.src_phys.is_some() || self.dst_phys.is_some() => {
                        let (s, d) = ((self.src_phys, src), (self.dst_phys, dst));
                        copy_line_phys(mem, tlb, &self.space, s, d, self.line_bytes, scratch)?
                    }
                    (None, Side::Pitch, Side::Pitch) => {
                        copy_line(mem, tlb, &self.space, src, dst, self.line_bytes, scratch)?
                    }
                    (None, s, d) => self.block_line(mem, tlb, (s, self.regs.src), (d, self.regs.dst), line, scratch)?,
                }
            }
        }
        let addr = self.regs.sem_addr;
        match self.semaphore {
            CopySemaphore::OneWord => tlb.write_va_u32(mem, &self.space, addr, self.regs.sem_payload)?,
            CopySemaphore::FourWord => {
                tlb.write_va(mem, &self.space, addr + 8, &now_ns.to_le_bytes())?;
                tlb.write_va(mem, &self.space, addr + 4, &0u32.to_le_bytes())?;
                tlb.write_va_u32(mem, &self.space, addr, self.regs.sem_payload)?;
            }
            CopySemaphore::None | CopySemaphore::Invalid => {}
        }
        Ok(())
    }

    fn remap_line(
        &self,
        mem: &mut Memory,
        tlb: &mut Tlb,
        r: Remap,
        src: u64,
        dst: u64,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        let pixels = self.regs.line_length as u64;
        let dst_pixel = r.comp * r.dst_comps;
        let src_pixel = r.comp * r.src_comps;
        let needs_src = r.sel[..r.dst_comps]
            .iter()
            .any(|s| matches!(s, RemapSrc::SrcX | RemapSrc::SrcY | RemapSrc::SrcZ | RemapSrc::SrcW));
        let needs_dst = r.sel[..r.dst_comps].contains(&RemapSrc::NoWrite);
        let consts = [self.regs.const_a.to_le_bytes(), self.regs.const_b.to_le_bytes()];
        // Process in batches of whole pixels.
        let batch = (CHUNK / dst_pixel.max(src_pixel)).max(1) as u64;
        let mut srcbuf = vec![0u8; if needs_src { batch as usize * src_pixel } else { 0 }];
        let mut p = 0;
        while p < pixels {
            let n = batch.min(pixels - p) as usize;
            scratch.resize(n * dst_pixel, 0);
            let d = dst.wrapping_add(p * dst_pixel as u64);
            if needs_dst {
                tlb.read_va(mem, &self.space, d, &mut scratch[..n * dst_pixel])?;
            }
            if needs_src {
                tlb.read_va(mem, &self.space, src.wrapping_add(p * src_pixel as u64), &mut srcbuf[..n * src_pixel])?;
            }
            for i in 0..n {
                for (c, sel) in r.sel[..r.dst_comps].iter().enumerate() {
                    let out = &mut scratch[i * dst_pixel + c * r.comp..][..r.comp];
                    match sel {
                        RemapSrc::ConstA => out.copy_from_slice(&consts[0][..r.comp]),
                        RemapSrc::ConstB => out.copy_from_slice(&consts[1][..r.comp]),
                        RemapSrc::NoWrite | RemapSrc::Invalid => {}
                        s => {
                            let k = *s as usize;
                            if k < r.src_comps {
                                out.copy_from_slice(&srcbuf[i * src_pixel + k * r.comp..][..r.comp]);
                            } else {
                                out.fill(0);
                            }
                        }
                    }
                }
            }
            tlb.write_va(mem, &self.space, d, &scratch[..n * dst_pixel])?;
            p += n as u64;
        }
        Ok(())
    }
}

impl CopyJob {
    /// Line `line` with a block-linear side: gathered into `scratch` from the source (a
    /// pitch line, or the row's pieces of at most 16 contiguous bytes in its GOBs), then
    /// written or scattered likewise.
    fn block_line(
        &self,
        mem: &mut Memory,
        tlb: &mut Tlb,
        (src, src_base): (Side, u64),
        (dst, dst_base): (Side, u64),
        line: u64,
        scratch: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        let n = self.line_bytes as usize;
        scratch.resize(n, 0);
        let pitch_at = |base: u64, pitch: u32| base.wrapping_add(line * pitch as u64);
        match src {
            Side::Pitch => tlb.read_va(mem, &self.space, pitch_at(src_base, self.regs.pitch_in), &mut scratch[..n])?,
            Side::Block(bl, x, y, z) => {
                for (off, len) in runs(x, n as u64) {
                    let va = src_base.wrapping_add(bl.offset(x + off, y + line, z));
                    tlb.read_va(mem, &self.space, va, &mut scratch[off as usize..(off + len) as usize])?;
                }
            }
        }
        match dst {
            Side::Pitch => tlb.write_va(mem, &self.space, pitch_at(dst_base, self.regs.pitch_out), &scratch[..n]),
            Side::Block(bl, x, y, z) => {
                for (off, len) in runs(x, n as u64) {
                    let va = dst_base.wrapping_add(bl.offset(x + off, y + line, z));
                    tlb.write_va(mem, &self.space, va, &scratch[off as usize..(off + len) as usize])?;
                }
                Ok(())
            }
        }
    }
}

/// The pieces of `n` bytes from byte `x` of a block-linear row that are contiguous in
/// memory (16-byte aligned runs of a GOB row): (offset into the line, length).
fn runs(x: u64, n: u64) -> impl Iterator<Item = (u64, u64)> {
    let mut off = 0;
    core::iter::from_fn(move || {
        (off < n).then(|| {
            let len = (16 - (x + off) % 16).min(n - off);
            let r = (off, len);
            off += len;
            r
        })
    })
}

const CHUNK: usize = 64 * 1024;

fn copy_line(
    mem: &mut Memory,
    tlb: &mut Tlb,
    space: &AddressSpace,
    src: u64,
    dst: u64,
    bytes: u64,
    scratch: &mut Vec<u8>,
) -> Result<(), Fault> {
    let mut done = 0u64;
    scratch.resize(CHUNK, 0);
    while done < bytes {
        let n = (bytes - done).min(CHUNK as u64) as usize;
        tlb.read_va(mem, space, src.wrapping_add(done), &mut scratch[..n])?;
        tlb.write_va(mem, space, dst.wrapping_add(done), &scratch[..n])?;
        done += n as u64;
    }
    Ok(())
}

/// A pitch line with a physical side (or two): a side with a target is read or written
/// at its physical address in that memory, the other through the MMU.
fn copy_line_phys(
    mem: &mut Memory,
    tlb: &mut Tlb,
    space: &AddressSpace,
    (src_t, src): (Option<Target>, u64),
    (dst_t, dst): (Option<Target>, u64),
    bytes: u64,
    scratch: &mut Vec<u8>,
) -> Result<(), Fault> {
    let fault = |va: u64, write: bool| move |reason| Fault { va, reason, write };
    let mut done = 0u64;
    scratch.resize(CHUNK, 0);
    while done < bytes {
        let n = (bytes - done).min(CHUNK as u64) as usize;
        let (s, d) = (src.wrapping_add(done), dst.wrapping_add(done));
        match src_t {
            Some(t) => mem.read(t, s, &mut scratch[..n]).map_err(fault(s, false))?,
            None => tlb.read_va(mem, space, s, &mut scratch[..n])?,
        }
        match dst_t {
            Some(t) => mem.write(t, d, &scratch[..n]).map_err(fault(d, true))?,
            None => tlb.write_va(mem, space, d, &scratch[..n])?,
        }
        done += n as u64;
    }
    Ok(())
}

/// Statistics of one copy-engine job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyStats {
    /// Job number on this device (0, 1, ...), in launch order.
    pub seq: u64,
    /// Channel that launched it.
    pub chid: u32,
    /// Bytes written.
    pub bytes: u64,
    /// The path the data took.
    pub path: CopyPath,
    /// Which memories it joined.
    pub kind: CopyKind,
    /// Cycle the engine started it.
    pub start_cycle: u64,
    /// Cycle it completed (data landed, semaphore written).
    pub end_cycle: u64,
    /// Whether it faulted.
    pub failed: bool,
}

/// The engine: a queue of jobs completing in order.
#[derive(Default)]
pub struct CopyEngine {
    queue: VecDeque<CopyJob>,
    free_at: u64,
    /// Scratch buffer reused across jobs.
    pub scratch: Vec<u8>,
}

impl CopyEngine {
    /// Queue `job`, starting no earlier than `now`; returns its completion cycle.
    pub fn launch(&mut self, mut job: CopyJob, now: u64, cost: u64) -> u64 {
        let start = now.max(self.free_at);
        job.start_at = start;
        job.done_at = start + cost;
        self.free_at = job.done_at;
        let t = job.done_at;
        self.queue.push_back(job);
        t
    }
    /// Completion cycle of the oldest job.
    pub fn next_done(&self) -> Option<u64> {
        self.queue.front().map(|j| j.done_at)
    }
    /// Take the oldest job.
    pub fn pop(&mut self) -> Option<CopyJob> {
        self.queue.pop_front()
    }
    /// Put `job` back at the head of the queue, to complete at its `done_at`: the engine
    /// works one job at a time, so the jobs queued after it start when it is done.
    pub fn postpone(&mut self, job: CopyJob) {
        let mut at = job.done_at;
        self.queue.push_front(job);
        for j in self.queue.iter_mut().skip(1) {
            let took = j.done_at - j.start_at;
            j.start_at = j.start_at.max(at);
            j.done_at = j.start_at + took;
            at = j.done_at;
        }
        self.free_at = self.free_at.max(at);
    }
    /// Whether jobs are queued.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty()
    }
    /// Drop the jobs of a channel that went away.
    pub fn cancel(&mut self, chid: u32) {
        self.queue.retain(|j| j.chid != chid);
    }
}
