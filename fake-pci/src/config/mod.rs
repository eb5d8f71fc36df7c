//! Device configuration: what the simulated board looks like and what operations cost.
//!
//! Every parameter of the model is a field of [`DeviceConfig`] or of one of its groups
//! ([`Board`], [`Sm`], [`Shared`], [`Pipes`], [`L1`], [`L2`], [`Dram`], [`Pcie`], [`CopyEngine`],
//! [`Pfifo`], [`Dispatch`]: one per unit of the chip), declared once in the
//! `params!` table below with its unit and meaning. The table gives the named presets
//! ([`DeviceConfig::preset`], usable in `no_std`), and a key/value interface
//! ([`DeviceConfig::set`], [`DeviceConfig::get`], [`DeviceConfig::KEYS`]) that the
//! `std` side uses to load and print TOML files a user can copy and edit.

mod presets;

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
}

/// How PFIFO picks the next channel when the current one's time slice ends or it blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelPolicy {
    /// The next runnable channel in runlist order.
    RoundRobin,
    /// The runnable channel of highest priority (RAMFC_SCHED); round robin among equals.
    Priority,
}

/// A parameter's value, as the key/value interface moves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// An integer.
    Int(u64),
    /// A word (names, modes, policies).
    Str(String),
}

/// A rejected parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// No parameter has this name.
    UnknownKey(String),
    /// The value has the wrong type or is out of range.
    BadValue {
        /// Parameter.
        key: &'static str,
        /// Why.
        why: &'static str,
    },
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::UnknownKey(k) => write!(f, "unknown parameter `{k}`"),
            ConfigError::BadValue { key, why } => write!(f, "parameter `{key}`: {why}"),
        }
    }
}

/// Conversion between a field and a [`Value`].
trait Param: Sized {
    fn to_value(&self) -> Value;
    fn from_value(v: &Value) -> Option<Self>;
}

impl Param for u32 {
    fn to_value(&self) -> Value {
        Value::Int(*self as u64)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Int(i) => u32::try_from(*i).ok(),
            _ => None,
        }
    }
}

impl Param for u64 {
    fn to_value(&self) -> Value {
        Value::Int(*self)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}

impl Param for String {
    fn to_value(&self) -> Value {
        Value::Str(self.clone())
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// A parameter that is one of a few words.
macro_rules! word_param {
    ($ty:ident { $($variant:ident => $word:literal),* $(,)? }) => {
        impl Param for $ty {
            fn to_value(&self) -> Value {
                Value::Str(match self { $($ty::$variant => $word.to_string()),* })
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    $(Value::Str(s) if s == $word => Some($ty::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

word_param!(Mode { Functional => "functional", Timing => "timing" });
word_param!(ChannelPolicy { RoundRobin => "round-robin", Priority => "priority" });
word_param!(Policy { Lrr => "lrr", Gto => "gto" });

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

/// `key`, or the current key of an [`OLD_KEYS`] one.
fn current_key(key: &str) -> &str {
    OLD_KEYS.iter().find(|&&(old, _)| old == key).map_or(key, |&(_, new)| new)
}

fn type_hint(ty: &str) -> &'static str {
    match ty {
        "u32" => "expected an integer from 0 to 4294967295",
        "u64" => "expected a non-negative integer",
        "Mode" => "expected \"functional\" or \"timing\"",
        "Policy" => "expected \"lrr\" or \"gto\"",
        "ChannelPolicy" => "expected \"round-robin\" or \"priority\"",
        _ => "expected a string",
    }
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
        /// Cycles from a branch or control instruction until the warp can issue again.
        branch_latency: u32,
        /// Cycles from the last warp arriving at a barrier until the block's warps resume.
        barrier_latency: u32,
        /// Constant cache latency (a uniform access), cycles.
        const_latency: u32,
    }
    /// The L1 data cache of each SM.
    l1: L1 {
        /// L1 data cache size per SM, bytes (global and local loads; write-through).
        bytes: u32,
        /// L1 associativity.
        ways: u32,
        /// L1 hit latency, cycles.
        latency: u32,
        /// Sectors the L1 tag stage handles per cycle.
        sectors_per_cycle: u32,
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
    }
    /// The copy engine.
    copy: CopyEngine {
        /// Copy engine fixed cost per launch, cycles.
        latency_cycles: u64,
        /// Copy engine throughput, bytes per cycle (its own limit, before PCIe and DRAM).
        bytes_per_cycle: u64,
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
        /// Dispatcher: cost of one block of up to `dispatch_free_warps` warps, millicycles.
        block_mcycles: u64,
        /// Dispatcher: warps per block that the block cost covers.
        free_warps: u32,
        /// Dispatcher: cost per warp of a larger block, millicycles.
        warp_mcycles: u64,
        /// Dispatcher: fixed extra cost of a larger block, millicycles.
        extra_mcycles: u64,
    }
}

/// The flat keys of rgdev before the parameters were grouped, and the key each is now;
/// [`DeviceConfig::set`] and [`DeviceConfig::get`] accept them, so older preset files load.
pub const OLD_KEYS: &[(&str, &str)] = &[
    ("vram_size", "board.vram_size"),
    ("bar1_size", "board.bar1_size"),
    ("clock_mhz", "board.clock_mhz"),
    ("cc_major", "board.cc_major"),
    ("cc_minor", "board.cc_minor"),
    ("gpcs", "board.gpcs"),
    ("sms", "board.sms"),
    ("max_threads_per_sm", "sm.max_threads"),
    ("max_blocks_per_sm", "sm.max_blocks"),
    ("regs_per_sm", "sm.regs"),
    ("schedulers_per_sm", "sm.schedulers"),
    ("policy", "sm.policy"),
    ("shared_per_sm", "shared.bytes"),
    ("shared_banks", "shared.banks"),
    ("shared_latency", "shared.latency"),
    ("alu_latency", "pipe.alu_latency"),
    ("alu_interval", "pipe.alu_interval"),
    ("f64_latency", "pipe.f64_latency"),
    ("f64_interval", "pipe.f64_interval"),
    ("sfu_latency", "pipe.sfu_latency"),
    ("sfu_interval", "pipe.sfu_interval"),
    ("div_latency", "pipe.div_latency"),
    ("div_interval", "pipe.div_interval"),
    ("shfl_latency", "pipe.shfl_latency"),
    ("branch_latency", "pipe.branch_latency"),
    ("barrier_latency", "pipe.barrier_latency"),
    ("const_latency", "pipe.const_latency"),
    ("l1_bytes", "l1.bytes"),
    ("l1_ways", "l1.ways"),
    ("l1_latency", "l1.latency"),
    ("l1_sectors_per_cycle", "l1.sectors_per_cycle"),
    ("l2_bytes", "l2.bytes"),
    ("l2_ways", "l2.ways"),
    ("l2_banks", "l2.banks"),
    ("l2_latency", "l2.latency"),
    ("l2_bank_cycles", "l2.bank_cycles"),
    ("dram_channels", "dram.channels"),
    ("dram_latency", "dram.latency"),
    ("dram_mbps", "dram.mbps"),
    ("mem_clock_mhz", "dram.clock_mhz"),
    ("mem_bus_bits", "dram.bus_bits"),
    ("pcie_mbps", "pcie.mbps"),
    ("pcie_latency_cycles", "pcie.latency_cycles"),
    ("copy_latency_cycles", "copy.latency_cycles"),
    ("copy_bytes_per_cycle", "copy.bytes_per_cycle"),
    ("method_cycles", "pfifo.method_cycles"),
    ("gpfifo_fetch_cycles", "pfifo.gpfifo_fetch_cycles"),
    ("channel_policy", "pfifo.channel_policy"),
    ("timeslice_cycles", "pfifo.timeslice_cycles"),
    ("launch_overhead_cycles", "dispatch.launch_overhead_cycles"),
    ("dispatch_block_mcycles", "dispatch.block_mcycles"),
    ("dispatch_free_warps", "dispatch.free_warps"),
    ("dispatch_warp_mcycles", "dispatch.warp_mcycles"),
    ("dispatch_extra_mcycles", "dispatch.extra_mcycles"),
];

/// The most host memory a board's model may need ([`DeviceConfig::host_bytes`]).
pub const HOST_BYTES_LIMIT: u64 = 4 << 30;

impl DeviceConfig {
    /// This configuration changed by `f`: `DeviceConfig::default().with(|c| c.board.sms = 4)`.
    pub fn with(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }

    /// Check that the parameters describe a board the model can build.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key, why| Err(ConfigError::BadValue { key, why });
        let pow2 = |v: u64| v.is_power_of_two();
        if self.board.vram_size < 1 << 20 || self.board.vram_size > 1 << 40 {
            return bad("board.vram_size", "must be from 1 MiB to 1 TiB");
        }
        if !pow2(self.board.bar1_size) || !(1 << 20..=1 << 36).contains(&self.board.bar1_size) {
            return bad("board.bar1_size", "must be a power of two from 1 MiB to 64 GiB");
        }
        if self.board.clock_mhz == 0 {
            return bad("board.clock_mhz", "must be at least 1");
        }
        if !(1..=255).contains(&self.board.sms) {
            return bad("board.sms", "must be from 1 to 255");
        }
        if !(1..=255).contains(&self.board.gpcs) {
            return bad("board.gpcs", "must be from 1 to 255");
        }
        if self.sm.max_threads < 32 || self.sm.max_threads > 64 * 1024 {
            return bad("sm.max_threads", "must be from 32 to 65536");
        }
        if self.sm.max_blocks == 0 || self.sm.max_blocks > 1024 {
            return bad("sm.max_blocks", "must be from 1 to 1024");
        }
        if !(256..=1 << 24).contains(&self.sm.regs) {
            return bad("sm.regs", "must be from 256 to 16777216");
        }
        if self.shared.bytes > 1 << 24 {
            return bad("shared.bytes", "must be at most 16 MiB");
        }
        if !(1..=64).contains(&self.sm.schedulers) {
            return bad("sm.schedulers", "must be from 1 to 64");
        }
        if !(1..=64).contains(&self.shared.banks) {
            return bad("shared.banks", "must be from 1 to 64");
        }
        if !pow2(self.sector_bytes as u64) || !(4..=4096).contains(&self.sector_bytes) {
            return bad("sector_bytes", "must be a power of two from 4 to 4096");
        }
        for (key, size, ways) in [("l1.bytes", self.l1.bytes, self.l1.ways), ("l2.bytes", self.l2.bytes, self.l2.ways)]
        {
            if ways == 0 || ways > 64 {
                return bad(key, "associativity must be from 1 to 64");
            }
            if size % (self.sector_bytes * ways) != 0 {
                return bad(key, "must be a multiple of sector_bytes * ways (0: no cache)");
            }
        }
        if self.l1.bytes > 16 << 20 {
            return bad("l1.bytes", "must be at most 16 MiB (an SM's L1)");
        }
        if self.l2.bytes > 1 << 30 {
            return bad("l2.bytes", "must be at most 1 GiB");
        }
        if self.l2.banks == 0 || self.l2.banks > 1024 {
            return bad("l2.banks", "must be from 1 to 1024");
        }
        if self.dram.channels == 0 || self.dram.channels > 1024 {
            return bad("dram.channels", "must be from 1 to 1024");
        }
        if self.dram.mbps == 0 || self.pcie.mbps == 0 || self.copy.bytes_per_cycle == 0 {
            return bad("dram.mbps", "bandwidths must be positive (dram_mbps, pcie_mbps, copy_bytes_per_cycle)");
        }
        if self.l1.sectors_per_cycle == 0 {
            return bad("l1.sectors_per_cycle", "must be at least 1");
        }
        for (key, v) in [
            ("pipe.alu_interval", self.pipe.alu_interval),
            ("pipe.f64_interval", self.pipe.f64_interval),
            ("pipe.sfu_interval", self.pipe.sfu_interval),
            ("pipe.div_interval", self.pipe.div_interval),
        ] {
            if v == 0 {
                return bad(key, "issue intervals must be at least 1");
            }
        }
        if self.pfifo.timeslice_cycles == 0 {
            return bad("pfifo.timeslice_cycles", "must be at least 1");
        }
        if self.dispatch.block_mcycles == 0 {
            return bad("dispatch.block_mcycles", "must be at least 1");
        }
        // Costs beyond these are not a GPU; they would only overflow the clock arithmetic.
        for (key, v, max) in [
            ("dispatch.launch_overhead_cycles", self.dispatch.launch_overhead_cycles, 1 << 32),
            ("copy.latency_cycles", self.copy.latency_cycles, 1 << 32),
            ("pcie.latency_cycles", self.pcie.latency_cycles, 1 << 32),
            ("pfifo.method_cycles", self.pfifo.method_cycles, 1 << 32),
            ("pfifo.gpfifo_fetch_cycles", self.pfifo.gpfifo_fetch_cycles, 1 << 32),
            ("pfifo.timeslice_cycles", self.pfifo.timeslice_cycles, 1 << 32),
            ("dispatch.block_mcycles", self.dispatch.block_mcycles, 1 << 40),
            ("dispatch.warp_mcycles", self.dispatch.warp_mcycles, 1 << 40),
            ("dispatch.extra_mcycles", self.dispatch.extra_mcycles, 1 << 40),
            ("watchdog_cycles", self.watchdog_cycles, 1 << 50),
        ] {
            if v > max {
                return bad(key, "is beyond what the model supports (see `rgdev preset show`)");
            }
        }
        // Sizes that pass one by one can still multiply into more host memory than a
        // simulator should take: refuse the board, naming what costs the most.
        let parts = self.host_bytes();
        let total = parts.iter().fold(0u64, |t, &(_, b)| t.saturating_add(b));
        if total > HOST_BYTES_LIMIT {
            let (key, _) = parts.iter().copied().max_by_key(|&(_, b)| b).unwrap_or(("board.sms", 0));
            return bad(key, "makes the model need more than 4 GiB of host memory (see `rgdev preset show`)");
        }
        Ok(())
    }

    /// The host memory the model allocates for this board at most, by the parameter it
    /// grows with: cache state (a tag, an LRU stamp and a dirty flag, 17 bytes a sector),
    /// the sparse-VRAM chunk table (16 bytes per 64 KiB), and what the SMs hold at once
    /// (every resident register as a 64-bit value, shared memory). VRAM itself is only
    /// backed where written, and kernels' local memory is sized per launch.
    pub fn host_bytes(&self) -> [(&'static str, u64); 5] {
        let sector = self.sector_bytes.max(1) as u64;
        let sms = self.board.sms as u64;
        [
            ("l1.bytes", sms * (self.l1.bytes as u64 / sector) * 17),
            ("l2.bytes", self.l2.bytes as u64 / sector * 17),
            ("board.vram_size", self.board.vram_size.div_ceil(64 << 10) * 16),
            ("sm.regs", sms * self.sm.regs as u64 * 8),
            ("shared.bytes", sms * self.shared.bytes as u64),
        ]
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
            CopyPath::VramToVram => self.transfer_mcycles(2 * bytes, self.dram.mbps).div_ceil(1000),
            CopyPath::VramFill => self.transfer_mcycles(bytes, self.dram.mbps).div_ceil(1000),
        };
        self.copy.latency_cycles.saturating_add(engine.max(link))
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
    fn presets_are_valid_and_round_trip_through_keys() {
        for (name, _) in PRESETS {
            let p = DeviceConfig::preset(name).unwrap();
            p.validate().unwrap();
            let mut q = DeviceConfig::preset("gf100").unwrap();
            for (k, _) in DeviceConfig::KEYS {
                q.set(k, &p.get(k).unwrap()).unwrap();
            }
            assert_eq!(p, q);
        }
        assert!(DeviceConfig::preset("nope").is_none());
    }

    #[test]
    fn old_flat_keys_name_the_grouped_parameters() {
        let c = DeviceConfig::preset("gf100").unwrap();
        for &(old, new) in OLD_KEYS {
            assert!(DeviceConfig::KEYS.iter().any(|&(k, _)| k == new), "{old} -> {new}");
            assert_eq!(c.get(old), c.get(new), "{old}");
        }
        // Every grouped key has exactly one old name, and no old name is a current key.
        let grouped = DeviceConfig::KEYS.iter().filter(|(k, _)| k.contains('.')).count();
        assert_eq!(OLD_KEYS.len(), grouped);
        assert!(OLD_KEYS.iter().all(|&(old, _)| DeviceConfig::KEYS.iter().all(|&(k, _)| k != old)));
        let mut d = c.clone();
        d.set("regs_per_sm", &Value::Int(1024)).unwrap();
        assert_eq!(d.sm.regs, 1024);
        assert_eq!(
            d.set("regs_per_sm", &Value::Str("x".into())).unwrap_err(),
            ConfigError::BadValue { key: "sm.regs", why: "expected an integer from 0 to 4294967295" }
        );
    }

    #[test]
    fn bad_values_are_named() {
        let mut c = DeviceConfig::default();
        assert_eq!(
            c.set("board.sms", &Value::Str("x".into())).unwrap_err(),
            ConfigError::BadValue { key: "board.sms", why: "expected an integer from 0 to 4294967295" }
        );
        assert!(matches!(c.set("nope", &Value::Int(1)), Err(ConfigError::UnknownKey(_))));
        c.set("board.sms", &Value::Int(0)).unwrap();
        assert!(matches!(c.validate(), Err(ConfigError::BadValue { key: "board.sms", .. })));
        let mut c = DeviceConfig::default();
        c.set("l1.bytes", &Value::Int(3000)).unwrap(); // not a whole number of sets
        assert!(c.validate().is_err());
        c.set("mode", &Value::Str("functional".into())).unwrap();
        assert_eq!(c.mode, Mode::Functional);
    }

    /// Regression (7b5e8b4 accepted `l1_bytes = 4294963200`, then aborted the process
    /// allocating 2.3 GB of tags per SM in cuInit).
    #[test]
    fn sizes_that_would_exhaust_the_host_are_refused_by_name() {
        let key = |c: &DeviceConfig| match c.validate() {
            Err(ConfigError::BadValue { key, .. }) => key,
            r => panic!("accepted: {r:?}"),
        };
        let mut c = DeviceConfig::default();
        c.set("l1.bytes", &Value::Int(4_294_963_200)).unwrap();
        assert_eq!(key(&c), "l1.bytes");
        // Each within its own bound, together too much: the largest share is named.
        let mut c = DeviceConfig::default();
        c.set("board.sms", &Value::Int(255)).unwrap();
        c.set("sm.regs", &Value::Int(1 << 24)).unwrap();
        assert_eq!(key(&c), "sm.regs");
        let mut c = DeviceConfig::default();
        c.set("board.sms", &Value::Int(255)).unwrap();
        c.set("l1.bytes", &Value::Int(16 << 20)).unwrap();
        c.set("shared.bytes", &Value::Int(16 << 20)).unwrap();
        assert_eq!(key(&c), "shared.bytes");
        for (name, _) in PRESETS {
            let p = DeviceConfig::preset(name).unwrap();
            let total: u64 = p.host_bytes().iter().map(|&(_, b)| b).sum();
            assert!(total < 512 << 20, "{name}: {total} bytes");
        }
    }

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
