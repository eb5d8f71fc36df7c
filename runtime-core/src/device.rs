//! The device layer: probe through PCI configuration space and NV_PMC_BOOT_0 and bring-up
//! (unit enables, interrupts, runlist buffers) here; by what they do, typed register
//! access and the PRAMIN window (`regs`), VRAM allocation and TLB flushes (`memory`),
//! channel binding and the runlist (`fifo`), interrupt service (`irq`), replayable faults
//! (`replay`) and waits (`wait`). It names only the platform (and the range allocator it
//! keeps VRAM with); the memory layer above it (vm.rs) builds BAR1's page tables and maps
//! USERD.
//!
//! Register sequences follow nouveau's gf100 code paths (fifo init, bar init, vm flush).

mod fifo; // channels: ids, USERD, binding, the runlist, their errors
mod irq; // interrupt service
mod memory; // VRAM allocation, the VMM API's physical allocations, TLB flushes
mod regs; // typed register access, BAR1 words, the PRAMIN window
pub mod replay; // replayable faults: the fault buffer and its service
mod wait; // waits, and the host functions and services they run
use crate::error::{CuError, Result};
use crate::physmem::PhysTable;
use crate::platform::{Level, Platform};
use crate::range::RangeAllocator;
use crate::rlog;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use hw::mmu;
use hw::pci;
use hw::regs::*;
use lock_api::Mutex;
pub(crate) use wait::HostWork;
pub use wait::Watch;

/// Chipsets the runtime drives, parsed once from NV_PMC_BOOT_0 (nouveau's chipset
/// numbers). Every one is driven through the same Fermi-style register interface (what
/// the simulated board implements); the chipset names the architecture a preset models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chipset {
    /// GF100 (Fermi, compute capability 2.x), chipset 0xC0.
    Gf100,
    /// GK110 (Kepler, 3.x), 0xF0.
    Gk110,
    /// GM200 (Maxwell, 5.x), 0x120.
    Gm200,
    /// GP100 (Pascal, 6.x), 0x130.
    Gp100,
    /// GV100 (Volta, 7.0), 0x140.
    Gv100,
    /// TU102 (Turing, 7.5), 0x162.
    Tu102,
    /// GA100 (Ampere, 8.x), 0x170.
    Ga100,
    /// GH100 (Hopper, 9.0), 0x180.
    Gh100,
}

impl TryFrom<PmcBoot0> for Chipset {
    type Error = CuError;
    fn try_from(b: PmcBoot0) -> Result<Self> {
        match b.chipset() {
            0xC0 => Ok(Chipset::Gf100),
            0xF0 => Ok(Chipset::Gk110),
            0x120 => Ok(Chipset::Gm200),
            0x130 => Ok(Chipset::Gp100),
            0x140 => Ok(Chipset::Gv100),
            0x162 => Ok(Chipset::Tu102),
            0x170 => Ok(Chipset::Ga100),
            0x180 => Ok(Chipset::Gh100),
            _ => Err(CuError::NotSupported),
        }
    }
}

/// What the probe found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// PCI vendor id.
    pub vendor: u16,
    /// PCI device id.
    pub device: u16,
    /// PCI subsystem vendor and id.
    pub subsystem: (u16, u16),
    /// PCI revision.
    pub revision: u8,
    /// PCI class code.
    pub class: u32,
    /// NV_PMC_BOOT_0.
    pub boot0: u32,
    /// Parsed chipset.
    pub chipset: Chipset,
    /// BAR0 bus address and size.
    pub bar0: (u64, u64),
    /// BAR1 bus address and size.
    pub bar1: (u64, u64),
    /// VRAM bytes.
    pub vram_size: u64,
    /// Graphics processing clusters.
    pub gpcs: u32,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// What one SM holds at once (NV_PGRAPH_SM_*): launches that cannot fit one block on
    /// an SM fail with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, and the occupancy rule uses it.
    pub sm: hw::occupancy::SmLimits,
    /// The device's watchdog in cycles (NV_PGRAPH_WATCHDOG), 0 when it has none: a grid
    /// that runs longer ends in CUDA_ERROR_LAUNCH_TIMEOUT (CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT).
    pub watchdog_cycles: u64,
    /// Compute capability (major, minor) of the SMs (NV_PGRAPH_SM_ARCH).
    pub compute_capability: (u32, u32),
    /// SM clock in kHz (NV_PGRAPH_CLOCK_KHZ).
    pub clock_khz: u32,
    /// Whether grids of different streams and contexts share the SMs at once
    /// (NV_PGRAPH_CAPS; CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS).
    pub concurrent_kernels: bool,
    /// Single-precision instructions issued in the time of one double-precision one.
    pub fp32_per_fp64: u32,
    /// Memory clock in kHz (NV_PFB_MEM_CLOCK_KHZ).
    pub mem_clock_khz: u32,
    /// DRAM bus width in bits (NV_PFB_BUS_WIDTH).
    pub mem_bus_bits: u32,
    /// L2 cache bytes (NV_PFB_L2_SIZE).
    pub l2_bytes: u32,
    /// Engines brought up.
    pub engines: &'static [&'static str],
}

/// Memory reserved at the bottom of VRAM (never handed out).
const VRAM_RESERVED: u64 = 1 << 20;

pub(crate) struct GpuState {
    pub vram: RangeAllocator,
    /// Physical allocations of the VMM API.
    pub(crate) phys: PhysTable,
    chids: u128,
    active: Vec<u32>,
    runlist: [u64; 2],
    flip: usize,
}

/// A probed, initialized GPU: the register layer under the runtime.
pub struct Device<P: Platform> {
    pub(crate) platform: P,
    info: DeviceInfo,
    bar0: u64,
    bar1: u64,
    pramin: Mutex<P::RawMutex, Option<u64>>,
    pub(crate) state: Mutex<P::RawMutex, GpuState>,
    irq: Mutex<P::RawMutex, ()>,
    chan_err: [AtomicU32; NUM_CHANNELS as usize],
    /// Host functions streams wait for, in the order they were queued.
    host_work: Mutex<P::RawMutex, Vec<HostWork>>,
    /// Host functions taken from `host_work` and running now, on some thread: a wait that
    /// finds the device idle waits for them instead of giving up (their release may be
    /// what it waits for).
    host_running: AtomicU32,
    /// Host functions taken or finished so far: a wait that found the device idle knows by
    /// it whether a host function started or ended meanwhile (its release may be pending).
    host_epoch: AtomicU64,
    /// The clock: held by a thread while it steps the device or takes host work whose
    /// turn has come (see [`Device::advance`]).
    clock: Mutex<P::RawMutex, ()>,
    /// The next host function's place in the queue.
    host_seq: AtomicU64,
    /// What the clock's owner watches (see [`Watch`]).
    watch: alloc::sync::Arc<Watch>,
    chan_inst: [AtomicU64; NUM_CHANNELS as usize],
    /// The context each channel id belongs to (its handle's value; 0: none), which the
    /// fault service reads without any context's lock.
    pub(crate) chan_owner: [AtomicU64; NUM_CHANNELS as usize],
    /// Channels whose submitter waits for ring space holding its context's lock.
    pub(crate) chan_waiting: [core::sync::atomic::AtomicBool; NUM_CHANNELS as usize],
    /// Jobs submitted on each channel id since the device came up (launches, copy-engine
    /// jobs), counted across the channels that reuse the id: the device processes a
    /// channel's jobs in order, so the n-th record of a channel is its n-th job (tools
    /// join API calls to the work they started with it).
    chan_jobs: [[AtomicU64; 2]; NUM_CHANNELS as usize],
    userd_vram: u64,
    userd_bar1: u64,
    /// Replayable faults: the fault buffer and its service.
    pub(crate) replay: replay::Replay<P>,
    /// The errors of channels of other GPUs that a channel of this one waits for (the
    /// pieces of a gang's work, `logical`): consulted by every wait.
    pub(crate) linked: spin::Once<Linked>,
    /// The system's other GPUs, which every wait also serves (see [`Device::serve_others`]).
    pub(crate) others: spin::Once<Others>,
}

/// What a wait also serves: the system's other GPUs (their interrupts, parked accesses and
/// host work), true when it did something. Work on one GPU may wait for another's (an
/// event of another device, a page another GPU's faults bring), and a thread that waits
/// for one GPU is a thread the whole system has.
pub(crate) type Others = alloc::boxed::Box<dyn Fn() -> bool + Send + Sync>;

/// What a wait on channel `chid` also fails on: an error of another GPU's channel whose
/// work this channel acquires (see [`Device::wait_for`]).
pub(crate) type Linked = alloc::boxed::Box<dyn Fn(u32) -> Option<CuError> + Send + Sync>;

impl<P: Platform> Device<P> {
    /// Count a job submitted on channel `chid`: a kernel launch (`copy` false) or a
    /// copy-engine job.
    pub(crate) fn count_job(&self, chid: u32, copy: bool) {
        if let Some(c) = self.chan_jobs.get(chid as usize) {
            c[usize::from(copy)].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Launches and copy-engine jobs submitted on channel id `chid` so far.
    pub fn jobs_submitted(&self, chid: u32) -> (u64, u64) {
        self.chan_jobs
            .get(chid as usize)
            .map_or((0, 0), |c| (c[0].load(Ordering::Relaxed), c[1].load(Ordering::Relaxed)))
    }

    /// Probe the device behind `platform`, power its units and enable its interrupts. BAR1
    /// and USERD are the memory layer's next step, [`Device::runlist_init`] the last
    /// (`Gpu::probe` does all three).
    pub(crate) fn probe(platform: P) -> Result<Self> {
        let id = platform.cfg_read32(pci::VENDOR_DEVICE);
        let (vendor, device) = (id as u16, (id >> 16) as u16);
        let rc = platform.cfg_read32(pci::REVISION_CLASS);
        let class = rc >> 8;
        if vendor != pci::VENDOR_NVIDIA || (class != pci::CLASS_3D_CONTROLLER && class != pci::CLASS_VGA) {
            rlog!(
                &platform,
                Level::Error,
                "probe: no NVIDIA display controller ({vendor:04x}:{device:04x} class {class:06x})"
            );
            return Err(CuError::NoDevice);
        }
        let sub = platform.cfg_read32(pci::SUBSYSTEM);
        let bar0_size = size_bar(&platform, pci::BAR0, None);
        let bar1_size = size_bar(&platform, pci::BAR1_LO, Some(pci::BAR1_HI));
        let mask = !(pci::MemBar::FLAGS_MASK as u64);
        let bar0 = platform.cfg_read32(pci::BAR0) as u64 & mask;
        let bar1 = (platform.cfg_read32(pci::BAR1_LO) as u64 & mask) | (platform.cfg_read32(pci::BAR1_HI) as u64) << 32;
        if bar0 == 0 || bar1 == 0 || bar0_size < BAR0_SIZE as u64 || bar1_size == 0 {
            rlog!(
                &platform,
                Level::Error,
                "probe: BARs not assigned (bar0 {bar0:#x}/{bar0_size:#x}, bar1 {bar1:#x}/{bar1_size:#x})"
            );
            return Err(CuError::NoDevice);
        }
        let cmd = platform.cfg_read32(pci::COMMAND_STATUS);
        let on = pci::Command::new().with_memory_space(true).with_bus_master(true);
        platform.cfg_write32(pci::COMMAND_STATUS, cmd | u16::from(on) as u32);

        let boot0 = platform.mmio_read32(bar0 + NV_PMC_BOOT_0.offset() as u64);
        let chipset = Chipset::try_from(NV_PMC_BOOT_0.decode(boot0)).inspect_err(|_| {
            rlog!(&platform, Level::Error, "probe: unsupported chipset (BOOT_0 {boot0:#010x})");
        })?;
        let mut info = DeviceInfo {
            vendor,
            device,
            subsystem: (sub as u16, (sub >> 16) as u16),
            revision: rc as u8,
            class,
            boot0,
            chipset,
            bar0: (bar0, bar0_size),
            bar1: (bar1, bar1_size),
            vram_size: 0,
            gpcs: 0,
            sms: 0,
            sm: hw::occupancy::SmLimits { threads: 0, blocks: 0, regs: 0, shared: 0, rule: hw::occupancy::Rule::VOLTA },
            watchdog_cycles: 0,
            compute_capability: (0, 0),
            clock_khz: 0,
            concurrent_kernels: false,
            fp32_per_fp64: 1,
            mem_clock_khz: 0,
            mem_bus_bits: 0,
            l2_bytes: 0,
            engines: &["PFIFO", "PCOPY0", "PGRAPH", "PTIMER"],
        };

        // Power the units, then ask them what they are.
        let w = |r: u32, v: u32| platform.mmio_write32(bar0 + r as u64, v);
        let r = |r: u32| platform.mmio_read32(bar0 + r as u64);
        let en = PmcEnable::from(r(NV_PMC_ENABLE.offset()))
            .with_pfifo(true)
            .with_pcopy0(true)
            .with_pgraph(true)
            .with_ptimer(true);
        w(NV_PMC_ENABLE.offset(), en.into());
        info.vram_size = decode_vram_size(r(NV_PFB_VRAM_SIZE.offset()));
        let units = PgraphUnits::from(r(NV_PGRAPH_UNITS.offset()));
        info.gpcs = units.gpcs() as u32;
        info.sms = units.sms() as u32;
        let sm =
            [NV_PGRAPH_SM_THREADS, NV_PGRAPH_SM_BLOCKS, NV_PGRAPH_SM_REGS, NV_PGRAPH_SM_SHARED].map(|x| r(x.offset()));
        info.watchdog_cycles =
            r(NV_PGRAPH_WATCHDOG_LO.offset()) as u64 | (r(NV_PGRAPH_WATCHDOG_HI.offset()) as u64) << 32;
        let arch = PgraphSmArch::from(r(NV_PGRAPH_SM_ARCH.offset()));
        info.compute_capability = (arch.major() as u32, arch.minor() as u32);
        // The allocation rule is the architecture's (NVIDIA's occupancy calculator).
        let [threads, blocks, regs, shared] = sm;
        let rule = hw::occupancy::Rule::for_cc(arch.major() as u32);
        info.sm = hw::occupancy::SmLimits { threads, blocks, regs, shared, rule };
        info.clock_khz = r(NV_PGRAPH_CLOCK_KHZ.offset());
        let caps = PgraphCaps::from(r(NV_PGRAPH_CAPS.offset()));
        info.concurrent_kernels = caps.concurrent_kernels();
        info.fp32_per_fp64 = caps.fp32_per_fp64() as u32;
        info.mem_clock_khz = r(NV_PFB_MEM_CLOCK_KHZ.offset());
        info.mem_bus_bits = r(NV_PFB_BUS_WIDTH.offset());
        info.l2_bytes = r(NV_PFB_L2_SIZE.offset());
        if info.vram_size <= VRAM_RESERVED {
            return Err(CuError::NoDevice);
        }

        let gpu_state = GpuState {
            vram: RangeAllocator::new(VRAM_RESERVED, info.vram_size - VRAM_RESERVED),
            phys: Default::default(),
            chids: 0,
            active: Vec::new(),
            runlist: [0; 2],
            flip: 0,
        };
        let mut gpu = Device {
            platform,
            info,
            bar0,
            bar1,
            pramin: Mutex::new(None),
            state: Mutex::new(gpu_state),
            irq: Mutex::new(()),
            chan_err: [const { AtomicU32::new(0) }; NUM_CHANNELS as usize],
            host_work: Mutex::new(Vec::new()),
            host_running: AtomicU32::new(0),
            host_epoch: AtomicU64::new(0),
            clock: Mutex::new(()),
            host_seq: AtomicU64::new(0),
            watch: alloc::sync::Arc::new(Watch::default()),
            chan_inst: [const { AtomicU64::new(0) }; NUM_CHANNELS as usize],
            chan_owner: [const { AtomicU64::new(0) }; NUM_CHANNELS as usize],
            chan_waiting: [const { core::sync::atomic::AtomicBool::new(false) }; NUM_CHANNELS as usize],
            chan_jobs: [const { [const { AtomicU64::new(0) }; 2] }; NUM_CHANNELS as usize],
            userd_vram: 0,
            userd_bar1: 0,
            replay: replay::Replay::new(),
            linked: spin::Once::new(),
            others: spin::Once::new(),
        };
        gpu.init()?;
        Ok(gpu)
    }

    fn init(&mut self) -> Result<()> {
        // Interrupts: PFIFO stall interrupts and the non-stall line.
        self.wr(NV_PFIFO_INTR_0, 0, PfifoIntr::from(u32::MAX));
        let pfifo =
            PfifoIntr::new().with_bind_error(true).with_sched_error(true).with_mmu_fault(true).with_pbdma_intr(true);
        self.wr(NV_PFIFO_INTR_EN_0, 0, pfifo);
        self.wr(NV_PPBDMA_INTR_0, 0, PbdmaIntr::from(u32::MAX));
        self.wr(NV_PPBDMA_INTR_EN_0, 0, PbdmaIntr::from(u32::MAX));
        self.wr(NV_PGRAPH_INTR, 0, PgraphIntr::from(u32::MAX));
        self.wr(NV_PGRAPH_INTR_EN, 0, PgraphIntr::new().with_trap(true));
        self.wr(NV_PMC_INTR_EN_0, 0, PmcIntr::new().with_pfifo(true).with_pgraph(true));
        self.wr(NV_PMC_INTR_EN_1, 0, PmcIntr::new().with_pfifo(true).with_pcopy0(true));
        Ok(())
    }

    /// The last step of bring-up, after the memory layer has built BAR1 and mapped USERD
    /// (vm.rs): the two runlist buffers, written alternately.
    pub(crate) fn runlist_init(&mut self) -> Result<()> {
        let rl_bytes = NUM_CHANNELS as u64 * 8;
        let rl0 = self.vram_alloc(rl_bytes, mmu::PAGE_SIZE)?;
        let rl1 = self.vram_alloc(rl_bytes, mmu::PAGE_SIZE)?;
        self.state.lock().runlist = [rl0, rl1];
        rlog!(
            &self.platform,
            Level::Info,
            "rgdev: {:?} (BOOT_0 {:#010x}), {} MiB VRAM, {} SMs, BAR1 {} MiB",
            self.info.chipset,
            self.info.boot0,
            self.info.vram_size >> 20,
            self.info.sms,
            self.info.bar1.1 >> 20
        );
        Ok(())
    }

    /// What the probe found.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The platform.
    pub fn platform(&self) -> &P {
        &self.platform
    }

    /// Device time in nanoseconds (PTIMER; read high, low, high).
    pub fn ptimer_ns(&self) -> u64 {
        loop {
            let hi = self.rd(NV_PTIMER_TIME_1, 0);
            let lo = self.rd(NV_PTIMER_TIME_0, 0);
            if self.rd(NV_PTIMER_TIME_1, 0) == hi {
                return (hi as u64) << 32 | lo as u64;
            }
        }
    }

    /// Registers one block may use: CUDA's per-block limit, or less on a device whose SMs
    /// have fewer.
    pub fn max_regs_per_block(&self) -> u32 {
        crate::limits::REGS_PER_BLOCK.min(self.info.sm.regs)
    }

    /// Shared memory one block may use: CUDA's 48 KiB, or less on a device whose SMs have
    /// less.
    pub fn max_shared_per_block(&self) -> u32 {
        crate::limits::MAX_SHARED.min(self.info.sm.shared)
    }

    /// Shared memory one block may use once its kernel opts in
    /// (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; see
    /// [`crate::limits::max_shared_optin`]).
    pub fn max_shared_per_block_optin(&self) -> u32 {
        crate::limits::max_shared_optin(self.info.compute_capability, self.info.sm.shared)
    }

    /// Free and total VRAM bytes.
    pub fn mem_info(&self) -> (u64, u64) {
        let st = self.state.lock();
        (st.vram.free_bytes(), self.info.vram_size)
    }
}

/// Size a BAR the way the PCI core does: write all-ones, read back, restore.
fn size_bar<P: Platform>(p: &P, lo: u16, hi: Option<u16>) -> u64 {
    let save_lo = p.cfg_read32(lo);
    p.cfg_write32(lo, u32::MAX);
    let mut mask = (p.cfg_read32(lo) & !pci::MemBar::FLAGS_MASK) as u64;
    p.cfg_write32(lo, save_lo);
    match hi {
        Some(hi) => {
            let save_hi = p.cfg_read32(hi);
            p.cfg_write32(hi, u32::MAX);
            mask |= (p.cfg_read32(hi) as u64) << 32;
            p.cfg_write32(hi, save_hi);
        }
        None => mask |= 0xFFFF_FFFF_0000_0000,
    }
    if mask == 0 { 0 } else { (!mask).wrapping_add(1) }
}
