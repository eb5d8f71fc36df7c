//! Validation: which boards the model can build, and the host memory one would take.
use super::{ConfigError, DeviceConfig};

/// The most host memory a board's model may need ([`DeviceConfig::host_bytes`]).
pub const HOST_BYTES_LIMIT: u64 = 4 << 30;

impl DeviceConfig {
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
        for (key, size, ways) in [
            ("l1.bytes", self.l1.bytes, self.l1.ways),
            ("tex.bytes", self.tex.bytes, self.tex.ways),
            ("l2.bytes", self.l2.bytes, self.l2.ways),
        ] {
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
        if self.l1.unified_bytes != 0 && !(self.shared.bytes..=16 << 20).contains(&self.l1.unified_bytes) {
            return bad(
                "l1.unified_bytes",
                "must be 0 or from shared.bytes to 16 MiB (the L1 and shared memory of an SM)",
            );
        }
        if self.tex.bytes > 16 << 20 {
            return bad("tex.bytes", "must be at most 16 MiB (an SM's texture cache)");
        }
        if !(1..=64).contains(&self.tex.units) {
            return bad("tex.units", "must be from 1 to 64");
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
            ("pipe.seq_interval", self.pipe.seq_interval),
        ] {
            if v == 0 {
                return bad(key, "issue intervals must be at least 1");
            }
        }
        if self.pfifo.timeslice_cycles == 0 {
            return bad("pfifo.timeslice_cycles", "must be at least 1");
        }
        if self.dispatch.launch_overlap_cycles > self.dispatch.launch_overhead_cycles {
            return bad("dispatch.launch_overlap_cycles", "must not exceed dispatch.launch_overhead_cycles");
        }
        if self.dispatch.block_mcycles == 0 {
            return bad("dispatch.block_mcycles", "must be at least 1");
        }
        // Costs beyond these are not a GPU; they would only overflow the clock arithmetic.
        for (key, v, max) in [
            ("dispatch.launch_overhead_cycles", self.dispatch.launch_overhead_cycles, 1 << 32),
            ("copy.latency_cycles", self.copy.latency_cycles, 1 << 32),
            ("pcie.latency_cycles", self.pcie.latency_cycles, 1 << 32),
            ("uvm.replay_cycles", self.uvm.replay_cycles, 1 << 32),
            ("pfifo.method_cycles", self.pfifo.method_cycles, 1 << 32),
            ("pfifo.gpfifo_fetch_cycles", self.pfifo.gpfifo_fetch_cycles, 1 << 32),
            ("pfifo.timeslice_cycles", self.pfifo.timeslice_cycles, 1 << 32),
            ("dispatch.block_mcycles", self.dispatch.block_mcycles, 1 << 40),
            ("dispatch.warp_mcycles", self.dispatch.warp_mcycles, 1 << 40),
            ("dispatch.extra_mcycles", self.dispatch.extra_mcycles, 1 << 40),
            ("dispatch.retire_mcycles", self.dispatch.retire_mcycles, 1 << 40),
            ("dispatch.retire_warp_mcycles", self.dispatch.retire_warp_mcycles, 1 << 40),
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
    pub fn host_bytes(&self) -> [(&'static str, u64); 6] {
        let sector = self.sector_bytes.max(1) as u64;
        let sms = self.board.sms as u64;
        [
            ("l1.bytes", sms * (self.l1.bytes.max(self.l1.unified_bytes) as u64 / sector) * 17),
            ("tex.bytes", sms * (self.tex.bytes as u64 / sector) * 17),
            ("l2.bytes", self.l2.bytes as u64 / sector * 17),
            ("board.vram_size", self.board.vram_size.div_ceil(64 << 10) * 16),
            ("sm.regs", sms * self.sm.regs as u64 * 8),
            ("shared.bytes", sms * self.shared.bytes as u64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Mode, PRESETS, Value};
    use super::*;

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
        c.set("l1.unified_bytes", &Value::Int(0)).unwrap();
        c.set("shared.bytes", &Value::Int(16 << 20)).unwrap();
        assert_eq!(key(&c), "shared.bytes");
        // The unified L1 and shared memory holds at least the shared memory.
        let mut c = DeviceConfig::default();
        c.set("l1.unified_bytes", &Value::Int(64 << 10)).unwrap();
        assert_eq!(key(&c), "l1.unified_bytes");
        for (name, _) in PRESETS {
            let p = DeviceConfig::preset(name).unwrap();
            let total: u64 = p.host_bytes().iter().map(|&(_, b)| b).sum();
            assert!(total < 512 << 20, "{name}: {total} bytes");
        }
    }
}
