//! Device configuration: what the simulated board looks like and what operations cost.
//!
//! Every parameter of the model is a field of [`DeviceConfig`] or of one of its groups
//! ([`Board`], [`Sm`], [`Shared`], [`Pipes`], [`L1`], [`L2`], [`Dram`], [`Pcie`], [`CopyCosts`],
//! [`Pfifo`], [`Dispatch`]: one per unit of the chip), declared once in the
//! `params!` table below with its unit and meaning. The table gives the named presets
//! ([`DeviceConfig::preset`], usable in `no_std`), and a key/value interface
//! ([`DeviceConfig::set`], [`DeviceConfig::get`], [`DeviceConfig::KEYS`]) that the
//! `std` side uses to load and print TOML files a user can copy and edit.

mod keys;
mod presets;
mod validate;

pub use keys::{ConfigError, OLD_KEYS, Value};
use keys::{Param, current_key, type_hint};
pub use validate::HOST_BYTES_LIMIT;

pub use presets::PRESETS;

use alloc::string::{String, ToString};

/// How the device spends host time on a grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No timing model: a grid runs to completion when its launch is processed and costs
    /// the launch overhead plus its warp instructions spread over the SMs. Fastest.
    Functional,
    /// The cycle-level model: SMs with warp schedulers and a scoreboard, the memory
    /// hierarchy, the dispatcher, all stepped by the device clock.
    Timing,
}

/// Which ready warp a warp scheduler issues from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Loose round robin: the next ready warp after the one that issued last.
    Lrr,
    /// Greedy then oldest: the warp that issued last while it stays ready, else the oldest.
    Gto,
}

/// The path a copy's data takes, which sets its bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyPath {
    /// System memory on either side: PCIe.
    Pcie,
    /// VRAM read and VRAM written: DRAM twice.
    VramToVram,
    /// VRAM written only (a memset): DRAM once.
    VramFill,
    /// Another GPU's VRAM on either side: the link to it (NVLink or PCIe peer to peer).
    Peer,
}

/// How PFIFO picks the next channel when the current one's time slice ends or it blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelPolicy {
    /// The next runnable channel in runlist order.
    RoundRobin,
    /// The runnable channel of highest priority (RAMFC_SCHED); round robin among equals.
    Priority,
}

macro_rules! params {
    (
        top { $( $(#[doc = $tdoc:literal])* $tfield:ident : $tty:ty ),* $(,)? }
        $( $(#[doc = $gdoc:literal])* $group:ident : $gty:ident {
            $( $(#[doc = $doc:literal])* $field:ident : $ty:ty ),* $(,)?
        } )*
    ) => {
        $(
            $(#[doc = $gdoc])*
            #[derive(Clone, Debug, PartialEq, Eq)]
            pub struct $gty {
                $( $(#[doc = $doc])* pub $field: $ty, )*
            }
        )*

        /// What the simulated board looks like and what operations cost in cycles (of the
        /// SM clock, `board.clock_mhz`), grouped by the unit each parameter belongs to.
        /// Build one with [`DeviceConfig::preset`] and change fields as needed (see
        /// [`DeviceConfig::with`]); [`DeviceConfig::validate`] checks a hand-made one.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct DeviceConfig {
            $( $(#[doc = $tdoc])* pub $tfield: $tty, )*
            $( $(#[doc = $gdoc])* pub $group: $gty, )*
        }

        impl DeviceConfig {
            /// Every parameter: (key, description), in declaration order. A grouped
            /// parameter's key is `group.field` (`l2.bytes`), a preset file's `[group]`.
            pub const KEYS: &'static [(&'static str, &'static str)] = &[
                $( (stringify!($tfield), concat!($($tdoc),*)), )*
                $( $( (concat!(stringify!($group), ".", stringify!($field)), concat!($($doc),*)), )* )*
            ];

            /// The groups: (name, description), in declaration order.
            pub const GROUPS: &'static [(&'static str, &'static str)] = &[
                $( (stringify!($group), concat!($($gdoc),*)), )*
            ];

            /// The value of parameter `key` (a key of [`Self::KEYS`] or of [`OLD_KEYS`]).
            pub fn get(&self, key: &str) -> Option<Value> {
                match current_key(key) {
                    $( stringify!($tfield) => Some(Param::to_value(&self.$tfield)), )*
                    $( $( concat!(stringify!($group), ".", stringify!($field)) =>
                        Some(Param::to_value(&self.$group.$field)), )* )*
                    _ => None,
                }
            }

            /// Set parameter `key` (a key of [`Self::KEYS`] or of [`OLD_KEYS`]); no range
            /// checks here: see [`DeviceConfig::validate`].
            pub fn set(&mut self, key: &str, v: &Value) -> Result<(), ConfigError> {
                match current_key(key) {
                    $( stringify!($tfield) => {
                        self.$tfield = <$tty as Param>::from_value(v).ok_or(ConfigError::BadValue {
                            key: stringify!($tfield),
                            why: type_hint(stringify!($tty)),
                        })?;
                    } )*
                    $( $( concat!(stringify!($group), ".", stringify!($field)) => {
                        self.$group.$field = <$ty as Param>::from_value(v).ok_or(ConfigError::BadValue {
                            key: concat!(stringify!($group), ".", stringify!($field)),
                            why: type_hint(stringify!($ty)),
                        })?;
                    } )* )*
                    _ => return Err(ConfigError::UnknownKey(key.to_string())),
                }
                Ok(())
            }
        }
    };
}

params! {
    top {
        /// Preset name (informational).
        name: String,
        /// "timing" (the cycle-level model) or "functional" (no timing, fastest).
        mode: Mode,
        /// Coalescing and cache line granularity in bytes (a power of two, 4 to 4096).
        sector_bytes: u32,
        /// Watchdog: a grid that runs longer than this many cycles is stopped
        /// (CUDA_ERROR_LAUNCH_TIMEOUT, sticky); 0: no watchdog (a hung kernel hangs, as on a
        /// GPU without one).
        watchdog_cycles: u64,
    }
    /// The board: memory apertures, clocks, what the runtime reports, how many SMs.
    board: Board {
        /// VRAM size in bytes (sparse: host memory is spent only on pages touched).
        vram_size: u64,
        /// BAR1 aperture size in bytes (a power of two).
        bar1_size: u64,
        /// SM clock in MHz: cycles count at this clock, PTIMER nanoseconds derive from it.
        clock_mhz: u32,
        /// Compute capability reported by the runtime, major.
        cc_major: u32,
        /// Compute capability reported by the runtime, minor.
        cc_minor: u32,
        /// Graphics processing clusters.
        gpcs: u32,
        /// Streaming multiprocessors.
        sms: u32,
    }
    /// An SM's resident-work limits and its warp schedulers.
    sm: Sm {
        /// Resident threads per SM.
        max_threads: u32,
        /// Resident blocks per SM.
        max_blocks: u32,
        /// Registers per SM (allocated per warp, in units of 256).
        regs: u32,
        /// Warp schedulers per SM (each issues at most one instruction per cycle).
        schedulers: u32,
        /// Warp scheduling policy: "lrr" (loose round robin) or "gto" (greedy then oldest).
        policy: Policy,
    }
    /// Shared memory: capacity per SM, banks, latency.
    shared: Shared {
        /// Shared memory per SM, bytes.
        bytes: u32,
        /// Shared memory banks (4 bytes wide).
        banks: u32,
        /// Shared memory latency without bank conflicts, cycles.
        latency: u32,
        /// Cycles each further way of a bank conflict adds (distinct words in one bank
        /// are served one after another).
        conflict_cycles: u32,
        /// Latency of an access to another block's shared memory in its thread block
        /// cluster (distributed shared memory, over the GPC's SM-to-SM network), cycles.
        remote_latency: u32,
    }
    /// Issue latencies and intervals of the SM's pipelines, in cycles.
    pipe: Pipes {
        /// Latency of integer and single-precision ALU and FMA instructions, cycles.
        alu_latency: u32,
        /// Cycles between two ALU warp instructions of one scheduler (32 lanes over its lanes).
        alu_interval: u32,
        /// Latency of double-precision instructions, cycles.
        f64_latency: u32,
        /// Issue interval of double-precision instructions.
        f64_interval: u32,
        /// Latency of special-function instructions (sin, cos, ex2, lg2, rcp, rsqrt, sqrt).
        sfu_latency: u32,
        /// Issue interval of special-function instructions.
        sfu_interval: u32,
        /// Latency of integer division and remainder (a software sequence on real parts).
        div_latency: u32,
        /// Issue interval of integer division and remainder.
        div_interval: u32,
        /// Latency of shuffles and votes.
        shfl_latency: u32,
        /// Latency of the instruction sequences the real compiler emits for IEEE-rounded
        /// division, reciprocal and square root (`div.rn`, `rcp.rn`, `sqrt.rn`, f32 and
        /// f64) and for a reciprocal square root that keeps denormals: a hardware
        /// approximation, Newton-Raphson refinement and a slow path for special operands.
        seq_latency: u32,
        /// Issue interval of those sequences (their instructions' issue slots).
        seq_interval: u32,
        /// Latency of a warp's tensor-core matrix multiply (`wmma.mma`), cycles.
        tensor_latency: u32,
        /// Issue interval of the tensor core per scheduler for 4096 half-precision
        /// multiply-adds (one m16n16k16 f16 multiply); other types scale by their rate.
        tensor_interval: u32,
        /// Cycles from a branch or control instruction until the warp can issue again.
        branch_latency: u32,
        /// Cycles from the last warp arriving at a barrier until the block's warps resume.
        barrier_latency: u32,
        /// Constant cache latency (a uniform access), cycles.
        const_latency: u32,
    }
    /// The L1 data cache of each SM.
    l1: L1 {
        /// L1 data cache size per SM, bytes (global and local loads; write-through), where
        /// the L1 and shared memory are not one store (`unified_bytes` 0).
        bytes: u32,
        /// L1 associativity.
        ways: u32,
        /// L1 hit latency, cycles.
        latency: u32,
        /// Sectors the L1 tag stage handles per cycle.
        sectors_per_cycle: u32,
        /// The SM's L1 and shared memory together, bytes (Volta and later): a launch's L1 is
        /// what its shared-memory carveout (the driver's choice, LAUNCH's L1_CONFIG) leaves.
        /// 0: the L1 is `bytes` whatever the carveout.
        unified_bytes: u32,
    }
    /// The texture path of each SM: its texture units and texture cache.
    tex: Tex {
        /// Texture cache per SM, bytes (read-only, 32-byte-sector lines like the L1's);
        /// 0: texture fetches look up the SM's L1 (Volta's unified L1/texture cache).
        bytes: u32,
        /// Texture cache associativity.
        ways: u32,
        /// Cycles from issue to filtered data on a texture-cache hit (addressing, lookup,
        /// filtering); a miss takes the L2's path and returns no sooner.
        latency: u32,
        /// Texture units per SM, each filtering one bilinear footprint (four texels) per
        /// cycle.
        units: u32,
    }
    /// The L2 cache, shared by all SMs.
    l2: L2 {
        /// L2 size, bytes (shared by all SMs; write-back, write-allocate).
        bytes: u32,
        /// L2 associativity.
        ways: u32,
        /// L2 banks (slices); sectors are interleaved across them.
        banks: u32,
        /// L2 hit latency seen by an SM, cycles.
        latency: u32,
        /// Cycles a bank is busy per sector.
        bank_cycles: u32,
    }
    /// DRAM: channels, latency, bandwidth, and the memory clock and bus the runtime reports.
    dram: Dram {
        /// DRAM channels; sectors are interleaved across them.
        channels: u32,
        /// DRAM latency added to an L2 miss, cycles.
        latency: u32,
        /// DRAM bandwidth, MB/s (all channels together).
        mbps: u64,
        /// Memory clock reported by the runtime, MHz.
        clock_mhz: u32,
        /// Memory bus width reported by the runtime, bits.
        bus_bits: u32,
    }
    /// The PCIe link to system memory.
    pcie: Pcie {
        /// PCIe bandwidth, MB/s (copies to and from system memory).
        mbps: u64,
        /// PCIe latency, cycles (added to a copy that touches system memory).
        latency_cycles: u64,
        /// The host's copy of pageable memory into the driver's pinned staging buffers,
        /// MB/s: a host-to-device copy from pageable memory passes the device clock on by
        /// that copy's time (stepped clock; 0: host copies take no device time).
        staging_h2d_mbps: u64,
        /// The host's copy out of the staging buffers into pageable memory, MB/s (0: none).
        staging_d2h_mbps: u64,
    }
    /// The copy engine.
    copy: CopyCosts {
        /// Copy engine fixed cost per launch, cycles.
        latency_cycles: u64,
        /// Copy engine throughput, bytes per cycle (its own limit, before PCIe and DRAM).
        bytes_per_cycle: u64,
        /// Fixed cost of a copy within VRAM (device to device), cycles (0: `latency_cycles`).
        vram_latency_cycles: u64,
        /// The share of the DRAM's bandwidth a copy within VRAM reads and writes at, per
        /// mille (0: all of it).
        vram_permille: u64,
    }
    /// The MMU's replayable faults (managed memory paged on demand).
    uvm: Uvm {
        /// Cycles from NV_PFB_REPLAY to the parked warps' retry: what a driver's fault
        /// service costs beyond the page copy it makes (interrupt, reading the fault
        /// buffer, page-table update, TLB invalidate); tens of microseconds on real GPUs.
        replay_cycles: u64,
    }
    /// PFIFO: method processing, GPFIFO fetch and channel scheduling.
    pfifo: Pfifo {
        /// Cycles to process one method.
        method_cycles: u64,
        /// Cycles to fetch one GPFIFO entry and its segment header.
        gpfifo_fetch_cycles: u64,
        /// PFIFO's channel scheduling: "round-robin" or "priority" (RAMFC_SCHED priorities).
        channel_policy: ChannelPolicy,
        /// A channel's time slice on PFIFO, cycles (RAMFC_SCHED may set its own).
        timeslice_cycles: u64,
    }
    /// Kernel launch and the block dispatcher.
    dispatch: Dispatch {
        /// Kernel launch overhead: cycles from LAUNCH until the first block is dispatched.
        launch_overhead_cycles: u64,
        /// Of the launch overhead, the cycles the front end spends preparing a launch while
        /// the channel's grid before it still runs (so back-to-back launches cost less each
        /// than one alone).
        launch_overlap_cycles: u64,
        /// Dispatcher: cost of one block of up to `dispatch.free_warps` warps, millicycles.
        block_mcycles: u64,
        /// Dispatcher: warps per block that the block cost covers.
        free_warps: u32,
        /// Dispatcher: cost per warp of a larger block, millicycles.
        warp_mcycles: u64,
        /// Dispatcher: fixed extra cost of a larger block, millicycles.
        extra_mcycles: u64,
        /// The front end's work on each finished block, millicycles, one block at a time
        /// for the whole device: the block's SM resources are free again, and its grid
        /// done, once that is processed (0: at once, at its last warp's exit).
        retire_mcycles: u64,
        /// ... and per warp of the block, millicycles.
        retire_warp_mcycles: u64,
    }
}

impl DeviceConfig {
    /// This configuration changed by `f`: `DeviceConfig::default().with(|c| c.board.sms = 4)`.
    pub fn with(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }

    /// The L1 of an SM configured with a shared-memory carveout of `carveout` bytes: what
    /// it leaves of the unified L1 and shared memory, or `l1.bytes` where they are apart.
    pub fn l1_bytes_for(&self, carveout: u32) -> u32 {
        if self.l1.unified_bytes == 0 { self.l1.bytes } else { self.l1.unified_bytes - carveout.min(self.shared.bytes) }
    }

    /// An SM's resources and the occupancy rule of the board's architecture: what the
    /// block dispatcher fills.
    pub fn sm_limits(&self) -> hw::occupancy::SmLimits {
        hw::occupancy::SmLimits {
            threads: self.sm.max_threads,
            blocks: self.sm.max_blocks,
            regs: self.sm.regs,
            shared: self.shared.bytes,
            rule: hw::occupancy::Rule::for_cc(self.board.cc_major),
        }
    }

    /// Simulated nanoseconds after `cycles` cycles.
    pub fn cycles_to_ns(&self, cycles: u64) -> u64 {
        ((cycles as u128 * 1000) / self.board.clock_mhz.max(1) as u128) as u64
    }

    /// Millicycles to move `bytes` bytes at `mbps` MB/s.
    pub fn transfer_mcycles(&self, bytes: u64, mbps: u64) -> u64 {
        // bytes / (mbps * 1e6 B/s) * (clock_mhz * 1e6 cycles/s) * 1000 millicycles
        ((bytes as u128 * self.board.clock_mhz as u128 * 1000) / mbps.max(1) as u128).min(u64::MAX as u128) as u64
    }

    /// Cycles a copy of `bytes` bytes occupies the copy engine: its fixed cost, then the
    /// slowest of the engine and the path the data takes.
    pub fn copy_cycles(&self, bytes: u64, path: CopyPath) -> u64 {
        let engine = bytes.div_ceil(self.copy.bytes_per_cycle.max(1));
        let link = match path {
            CopyPath::Pcie => {
                self.pcie.latency_cycles.saturating_add(self.transfer_mcycles(bytes, self.pcie.mbps).div_ceil(1000))
            }
            CopyPath::VramToVram => {
                let mbps = match self.copy.vram_permille {
                    0 => self.dram.mbps,
                    p => (self.dram.mbps.saturating_mul(p) / 1000).max(1),
                };
                let setup = match self.copy.vram_latency_cycles {
                    0 => 0,
                    v => v.saturating_sub(self.copy.latency_cycles),
                };
                setup.saturating_add(self.transfer_mcycles(2 * bytes, mbps).div_ceil(1000))
            }
            CopyPath::VramFill => self.transfer_mcycles(bytes, self.dram.mbps).div_ceil(1000),
            // The link's figures come with it (`peer_copy_cycles`); alone, DRAM's.
            CopyPath::Peer => self.transfer_mcycles(bytes, self.dram.mbps).div_ceil(1000),
        };
        self.copy.latency_cycles.saturating_add(engine.max(link))
    }

    /// [`DeviceConfig::copy_cycles`] for a copy to or from a peer over a link of `mbps`
    /// MB/s and `latency` cycles: the slowest of the engine, the link and this GPU's DRAM.
    pub fn peer_copy_cycles(&self, bytes: u64, mbps: u64, latency: u64) -> u64 {
        let engine = bytes.div_ceil(self.copy.bytes_per_cycle.max(1));
        let dram = self.transfer_mcycles(bytes, self.dram.mbps).div_ceil(1000);
        let link = latency.saturating_add(self.transfer_mcycles(bytes, mbps).div_ceil(1000));
        self.copy.latency_cycles.saturating_add(engine.max(dram).max(link))
    }

    /// Millicycles the front end spends on a finished block of `warps` warps (0: none).
    pub fn retire_mcycles(&self, warps: u32) -> u64 {
        if self.dispatch.retire_mcycles == 0 {
            return 0;
        }
        self.dispatch.retire_warp_mcycles.saturating_mul(warps as u64).saturating_add(self.dispatch.retire_mcycles)
    }

    /// Millicycles the dispatcher spends placing a block of `warps` warps.
    pub fn dispatch_mcycles(&self, warps: u32) -> u64 {
        if warps <= self.dispatch.free_warps {
            self.dispatch.block_mcycles
        } else {
            (self.dispatch.warp_mcycles.saturating_mul(warps as u64).saturating_add(self.dispatch.extra_mcycles))
                .max(self.dispatch.block_mcycles)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_costs_follow_the_published_table() {
        let c = DeviceConfig::preset("dispatch-calibration").unwrap();
        assert_eq!(c.dispatch_mcycles(1), 4000);
        assert_eq!(c.dispatch_mcycles(4), 4000);
        assert_eq!(c.dispatch_mcycles(5), 5170);
        assert_eq!(c.dispatch_mcycles(16), 16500);
    }

    #[test]
    fn copies_are_bound_by_the_slowest_link() {
        let c = DeviceConfig::default();
        // 12 GB/s at 1530 MHz: 1 MiB takes 87.4 us = 133,693 cycles.
        let h2d = c.copy_cycles(1 << 20, CopyPath::Pcie);
        assert_eq!(h2d, 400 + 1500 + 133_694);
        assert!(c.copy_cycles(1 << 20, CopyPath::VramToVram) < h2d / 20);
        assert_eq!(c.copy_cycles(1 << 20, CopyPath::VramToVram), 400 + 4096);
    }
}
