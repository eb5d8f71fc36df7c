//! A system of GPUs: how many, each built from a device preset, where each sits on the
//! host's buses (its own PCI function, BARs and VRAM at disjoint addresses), and the
//! interconnect between them: a PCIe tree of switches under CPU sockets, and NVLink-style
//! point-to-point links with a number of links per pair. Paths between two GPUs are named
//! as `nvidia-smi topo -m` names them (NV#, PIX, PHB, SYS).
//!
//! The system's physical address map places every GPU's VRAM in one range of its own
//! (MGPUSim's allocator over disjoint physical ranges): [`SystemConfig::gpu_of_phys`] finds
//! the GPU that owns a system physical address, which peer mappings name.

use crate::DeviceConfig;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// The most GPUs a system holds.
pub const MAX_GPUS: usize = 16;
/// NVLink ports per GPU of a V100 (six; see [`nvlink_ports`]).
pub const NVLINK_PORTS: u32 = 6;

/// NVLink ports of a GPU configured as `cfg`: a V100 has six (NVLink 2), an A100 twelve
/// (NVLink 3), an H100 eighteen (NVLink 4); parts before them none, counted as six.
pub fn nvlink_ports(cfg: &DeviceConfig) -> u32 {
    match cfg.board.cc_major {
        9.. => 18,
        8 => 12,
        _ => NVLINK_PORTS,
    }
}
/// Bus addresses of GPU `i`'s BAR0: `BAR0_BUS - i * BAR0_STRIDE` (below 4 GiB, as a
/// 32-bit BAR must be).
pub const BAR0_STRIDE: u64 = hw::regs::BAR0_SIZE as u64;
/// Bus addresses of GPU `i`'s BAR1: `BAR1_BUS + i * BAR1_STRIDE` (64 GiB apart, room for
/// the largest BAR1 a preset may ask for).
pub const BAR1_STRIDE: u64 = 64 << 30;
/// VRAM ranges in the system physical map start at 1 GiB boundaries.
pub const PHYS_ALIGN: u64 = 1 << 30;

/// The built-in system presets (any device preset is also a one-GPU system).
pub const SYSTEM_PRESETS: &[(&str, &str)] = &[
    ("gv100x2", "two gv100 behind one PCIe 3.0 switch (PIX), no NVLink"),
    ("gv100x4", "four gv100, two per PCIe switch, the switches under one CPU socket (PIX, PHB)"),
    ("gv100x4u", "gv100x4 presented to programs as one logical GPU (memory split by pages, grids by blocks)"),
    (
        "dgx-a100",
        "DGX A100: eight a100 on NVSwitch, every pair at twelve NVLink 3 links (300 GB/s per direction), \
         PCIe 4.0, pairs of GPUs behind four switches, two per CPU socket",
    ),
    (
        "hgx-h100x8",
        "HGX H100: eight h100 on NVSwitch, every pair at eighteen NVLink 4 links (450 GB/s per direction), \
         PCIe 5.0, pairs of GPUs behind four switches, two per CPU socket",
    ),
    ("hgx-h200x8", "HGX H200: hgx-h100x8 with eight h200"),
    (
        "dgx1",
        "DGX-1 with V100: eight gv100 in the NVLink hybrid cube-mesh (six 25 GB/s links per GPU), \
         pairs of GPUs behind four PCIe switches, two per CPU socket",
    ),
];

/// How two GPUs reach each other, in `nvidia-smi topo -m`'s terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// The same GPU.
    Same,
    /// Direct NVLink connections, this many.
    NvLink(u32),
    /// Behind the same PCIe switch.
    Pix,
    /// Different switches under one CPU socket's host bridge.
    Phb,
    /// Across CPU sockets.
    Sys,
}

impl Path {
    /// The matrix entry: `X`, `NV2`, `PIX`, `PHB`, `SYS`.
    pub fn label(self) -> String {
        match self {
            Self::Same => "X".into(),
            Self::NvLink(n) => format!("NV{n}"),
            Self::Pix => "PIX".into(),
            Self::Phb => "PHB".into(),
            Self::Sys => "SYS".into(),
        }
    }
}

/// The interconnect: the PCIe tree and the NVLink connections, with their speeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interconnect {
    /// The PCIe switch each GPU sits behind (index per GPU).
    pub switch_of: Vec<u32>,
    /// The CPU socket each switch hangs off (index per switch).
    pub socket_of_switch: Vec<u32>,
    /// NVLink connections: (GPU a, GPU b, links), each pair at most once.
    pub nvlinks: Vec<(u32, u32, u32)>,
    /// NVLinks each GPU has into an NVSwitch fabric that connects them all (0: none): every
    /// pair then reaches the other at that many links.
    pub nvswitch: u32,
    /// One NVLink's bandwidth per direction, MB/s.
    pub nvlink_mbps: u64,
    /// NVLink latency, ns.
    pub nvlink_latency_ns: u64,
    /// A GPU's PCIe link bandwidth per direction, MB/s (peer traffic through a switch).
    pub pcie_mbps: u64,
    /// Latency of a peer access through one PCIe switch, ns.
    pub pix_latency_ns: u64,
    /// Latency through a CPU's host bridge, ns.
    pub phb_latency_ns: u64,
    /// The inter-socket link's bandwidth per direction, MB/s, and its latency, ns.
    pub socket_mbps: u64,
    /// See `socket_mbps`.
    pub sys_latency_ns: u64,
}

/// Where GPU `i` sits on the host's buses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// PCI domain, bus, device, function.
    pub bdf: (u16, u8, u8, u8),
    /// BAR0 (registers) bus address.
    pub bar0: u64,
    /// BAR1 (aperture) bus address.
    pub bar1: u64,
    /// Where its VRAM starts in the system physical map.
    pub vram_base: u64,
}

/// A system: its GPUs and their interconnect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemConfig {
    /// Preset name.
    pub name: String,
    /// Each GPU's configuration, in ordinal order.
    pub gpus: Vec<DeviceConfig>,
    /// How they are connected.
    pub interconnect: Interconnect,
    /// Whether the runtime presents the GPUs to the program as one logical GPU (MGPUSim's
    /// unified GPU: memory split by pages, grids by blocks; `runtime_core::logical`).
    pub unified: bool,
}

impl Interconnect {
    /// PCIe 3.0 x16 links (12 GB/s per direction achieved), switches every `per_switch`
    /// GPUs, `switches_per_socket` switches per CPU socket, no NVLink.
    fn pcie(gpus: usize, per_switch: usize, switches_per_socket: usize) -> Self {
        let switches = gpus.div_ceil(per_switch);
        Self {
            switch_of: (0..gpus).map(|g| (g / per_switch) as u32).collect(),
            socket_of_switch: (0..switches).map(|s| (s / switches_per_socket) as u32).collect(),
            nvlinks: Vec::new(),
            nvswitch: 0,
            nvlink_mbps: 25_000,
            nvlink_latency_ns: 700,
            pcie_mbps: 12_000,
            pix_latency_ns: 1_000,
            phb_latency_ns: 1_500,
            socket_mbps: 9_000,
            sys_latency_ns: 2_500,
        }
    }
}

impl SystemConfig {
    /// A system of one GPU.
    pub fn single(gpu: DeviceConfig) -> Self {
        Self { name: gpu.name.clone(), gpus: vec![gpu], interconnect: Interconnect::pcie(1, 1, 1), unified: false }
    }

    /// `n` copies of `gpu` on PCIe: two per switch, two switches per socket.
    pub fn pcie(name: &str, gpu: DeviceConfig, n: usize) -> Self {
        Self { name: name.to_string(), gpus: vec![gpu; n], interconnect: Interconnect::pcie(n, 2, 2), unified: false }
    }

    /// A built-in system preset by name (see [`SYSTEM_PRESETS`]).
    pub fn preset(name: &str) -> Option<Self> {
        let gv100 = DeviceConfig::preset("gv100")?;
        match name {
            "gv100x2" => Some(Self::pcie(name, gv100, 2)),
            "gv100x4" => Some(Self::pcie(name, gv100, 4)),
            "gv100x4u" => Some(Self { unified: true, ..Self::pcie(name, gv100, 4) }),
            "dgx1" => Some(Self::dgx1(gv100)),
            "dgx-a100" => Some(Self::nvswitch(name, DeviceConfig::preset("a100")?, 12, 24_000)),
            "hgx-h100x8" => Some(Self::nvswitch(name, DeviceConfig::preset("h100")?, 18, 55_000)),
            "hgx-h200x8" => Some(Self::nvswitch(name, DeviceConfig::preset("h200")?, 18, 55_000)),
            _ => None,
        }
    }

    /// DGX-1 with V100: the hybrid cube-mesh. The GPUs sit at a cube's corners, GPUs
    /// 0-3 and 4-7 each fully connected (two faces with their diagonals), plus the edges
    /// 0-4, 1-5, 2-6, 3-7; the pairs 0-3, 0-4, 1-2, 1-5, 2-3, 4-7, 5-6, 6-7 have two
    /// links, so every GPU uses its six. PCIe: pairs behind a switch, two switches per
    /// socket.
    fn dgx1(gpu: DeviceConfig) -> Self {
        let nvlinks = vec![
            (0, 1, 1),
            (0, 2, 1),
            (0, 3, 2),
            (0, 4, 2),
            (1, 2, 2),
            (1, 3, 1),
            (1, 5, 2),
            (2, 3, 2),
            (2, 6, 1),
            (3, 7, 1),
            (4, 5, 1),
            (4, 6, 1),
            (4, 7, 2),
            (5, 6, 2),
            (5, 7, 1),
            (6, 7, 2),
        ];
        let interconnect = Interconnect { nvlinks, ..Interconnect::pcie(8, 2, 2) };
        Self { name: "dgx1".into(), gpus: vec![gpu; 8], interconnect, unified: false }
    }

    /// Eight copies of `gpu` on NVSwitch: every pair reaches the other over `links` NVLinks
    /// (the switch gives any pair a GPU's whole NVLink bandwidth, as `nvidia-smi topo -m`
    /// shows it: `NV18` on HGX H100, `NV12` on DGX A100); PCIe at `pcie_mbps` per direction,
    /// pairs behind a switch, two switches per socket.
    fn nvswitch(name: &str, gpu: DeviceConfig, links: u32, pcie_mbps: u64) -> Self {
        let interconnect = Interconnect { nvswitch: links, pcie_mbps, ..Interconnect::pcie(8, 2, 2) };
        Self { name: name.into(), gpus: vec![gpu; 8], interconnect, unified: false }
    }

    /// How many GPUs.
    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    /// Whether there are none (never, once validated).
    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// The NVLinks between `a` and `b`: their direct connections, and the NVSwitch
    /// fabric's links when there is one.
    pub fn nvlinks(&self, a: usize, b: usize) -> u32 {
        let switched = if a != b && a < self.len() && b < self.len() { self.interconnect.nvswitch } else { 0 };
        let (a, b) = (a as u32, b as u32);
        let direct: u32 = self
            .interconnect
            .nvlinks
            .iter()
            .filter(|&&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
            .map(|&(_, _, n)| n)
            .sum();
        direct + switched
    }

    /// How `a` reaches `b`: NVLink when they have links, else through the PCIe tree.
    pub fn path(&self, a: usize, b: usize) -> Path {
        if a == b {
            return Path::Same;
        }
        let ic = &self.interconnect;
        let n = self.nvlinks(a, b);
        if n > 0 {
            return Path::NvLink(n);
        }
        let (sa, sb) = (ic.switch_of[a], ic.switch_of[b]);
        if sa == sb {
            Path::Pix
        } else if ic.socket_of_switch[sa as usize] == ic.socket_of_switch[sb as usize] {
            Path::Phb
        } else {
            Path::Sys
        }
    }

    /// Whether `a` can reach `b`'s memory peer to peer (cuDeviceCanAccessPeer): over
    /// NVLink, or PCIe through switches and one CPU's host bridge; not across CPU sockets
    /// (`SYS`: the inter-socket link carries no peer traffic), as on the DGX-1 and most
    /// dual-socket servers. Never a GPU to itself.
    pub fn p2p(&self, a: usize, b: usize) -> bool {
        a < self.len() && b < self.len() && !matches!(self.path(a, b), Path::Same | Path::Sys)
    }

    /// The PCI routing id of GPU `i` (bus 15:8, device 7:3, function 2:0), what a peer
    /// table entry names.
    pub fn routing_id(&self, i: usize) -> u16 {
        let (_, bus, dev, f) = self.placement(i).bdf;
        u16::from(bus) << 8 | u16::from(dev) << 3 | u16::from(f)
    }

    /// Peer bandwidth from `a` to `b` per direction, MB/s (0 for the same GPU).
    pub fn peer_mbps(&self, a: usize, b: usize) -> u64 {
        let ic = &self.interconnect;
        match self.path(a, b) {
            Path::Same => 0,
            Path::NvLink(n) => u64::from(n) * ic.nvlink_mbps,
            Path::Pix | Path::Phb => ic.pcie_mbps,
            Path::Sys => ic.pcie_mbps.min(ic.socket_mbps),
        }
    }

    /// Peer latency from `a` to `b`, ns.
    pub fn peer_latency_ns(&self, a: usize, b: usize) -> u64 {
        let ic = &self.interconnect;
        match self.path(a, b) {
            Path::Same => 0,
            Path::NvLink(_) => ic.nvlink_latency_ns,
            Path::Pix => ic.pix_latency_ns,
            Path::Phb => ic.phb_latency_ns,
            Path::Sys => ic.sys_latency_ns,
        }
    }

    /// Where GPU `i` sits: PCI `0000:ii:00.0`, BAR0 below the first GPU's, BAR1 above,
    /// VRAM after the previous GPUs' in the system physical map.
    pub fn placement(&self, i: usize) -> Placement {
        let base = self.gpus[..i].iter().fold(0u64, |b, g| (b + g.board.vram_size).next_multiple_of(PHYS_ALIGN));
        Placement {
            bdf: (0, i as u8, 0, 0),
            bar0: hw::pci::BAR0_BUS - i as u64 * BAR0_STRIDE,
            bar1: hw::pci::BAR1_BUS + i as u64 * BAR1_STRIDE,
            vram_base: base,
        }
    }

    /// The GPU whose VRAM holds system physical address `addr`, and the VRAM offset.
    pub fn gpu_of_phys(&self, addr: u64) -> Option<(usize, u64)> {
        (0..self.len()).find_map(|i| {
            let base = self.placement(i).vram_base;
            (addr >= base && addr - base < self.gpus[i].board.vram_size).then(|| (i, addr - base))
        })
    }

    /// The GPU whose BAR0 or BAR1 decodes bus address `addr`.
    pub fn gpu_of_bus(&self, addr: u64) -> Option<usize> {
        (0..self.len()).find(|&i| {
            let p = self.placement(i);
            (addr >= p.bar0 && addr - p.bar0 < BAR0_STRIDE)
                || (addr >= p.bar1 && addr - p.bar1 < self.gpus[i].board.bar1_size)
        })
    }

    /// The topology matrix as `nvidia-smi topo -m` prints it.
    pub fn topology_matrix(&self) -> String {
        let n = self.len();
        let mut s = String::from("     ");
        for j in 0..n {
            s += &format!("{:>6}", format!("GPU{j}"));
        }
        s.push('\n');
        for i in 0..n {
            s += &format!("{:<5}", format!("GPU{i}"));
            for j in 0..n {
                s += &format!("{:>6}", self.path(i, j).label());
            }
            s.push('\n');
        }
        s
    }

    /// Check the system: 1 to [`MAX_GPUS`] GPUs, each valid, the PCIe tree covering them,
    /// NVLink pairs of distinct GPUs within their ports.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.len();
        if n == 0 || n > MAX_GPUS {
            return Err(format!("a system has 1 to {MAX_GPUS} GPUs, not {n}"));
        }
        for (i, g) in self.gpus.iter().enumerate() {
            g.validate().map_err(|e| format!("GPU {i}: {e}"))?;
            if g.board.bar1_size > BAR1_STRIDE {
                return Err(format!("GPU {i}: BAR1 larger than {} GiB", BAR1_STRIDE >> 30));
            }
        }
        let ic = &self.interconnect;
        if ic.switch_of.len() != n {
            return Err(format!("the PCIe tree places {} GPUs, the system has {n}", ic.switch_of.len()));
        }
        if let Some(s) = ic.switch_of.iter().find(|&&s| s as usize >= ic.socket_of_switch.len()) {
            return Err(format!("PCIe switch {s} has no CPU socket"));
        }
        let mut ports = vec![ic.nvswitch; n];
        for (k, &(a, b, links)) in ic.nvlinks.iter().enumerate() {
            if a as usize >= n || b as usize >= n || a == b || links == 0 {
                return Err(format!("NVLink connection {k} ({a}, {b}, {links} links) is not between two GPUs"));
            }
            if ic.nvlinks[..k].iter().any(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a)) {
                return Err(format!("NVLink pair ({a}, {b}) is listed twice"));
            }
            ports[a as usize] += links;
            ports[b as usize] += links;
        }
        if let Some(g) = (0..n).find(|&g| ports[g] > nvlink_ports(&self.gpus[g])) {
            return Err(format!("GPU {g} has {} NVLinks; it has {} ports", ports[g], nvlink_ports(&self.gpus[g])));
        }
        if ic.nvlink_mbps == 0 || ic.pcie_mbps == 0 || ic.socket_mbps == 0 {
            return Err("interconnect bandwidths must be positive".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dgx1_is_the_hybrid_cube_mesh() {
        let s = SystemConfig::preset("dgx1").unwrap();
        s.validate().unwrap();
        for g in 0..8 {
            let links: u32 = (0..8).map(|h| s.nvlinks(g, h)).sum();
            assert_eq!(links, NVLINK_PORTS, "GPU {g} uses all its ports");
            assert_eq!((0..8).filter(|&h| s.nvlinks(g, h) > 0).count(), 4, "GPU {g}: four neighbours");
        }
        assert_eq!(s.path(0, 3), Path::NvLink(2));
        assert_eq!(s.path(0, 5), Path::Sys);
        assert_eq!(s.path(0, 1), Path::NvLink(1));
        assert_eq!(s.peer_mbps(0, 4), 50_000);
        assert!(s.topology_matrix().starts_with("       GPU0  GPU1"));
        assert!(s.topology_matrix().contains("GPU0      X   NV1   NV1   NV2   NV2   SYS   SYS   SYS"));
    }

    #[test]
    fn nvswitch_systems_connect_every_pair_at_a_gpus_links() {
        for (name, links, cc) in [("dgx-a100", 12, 8), ("hgx-h100x8", 18, 9), ("hgx-h200x8", 18, 9)] {
            let s = SystemConfig::preset(name).unwrap();
            s.validate().unwrap();
            assert_eq!((s.len(), s.gpus[0].board.cc_major, nvlink_ports(&s.gpus[0])), (8, cc, links), "{name}");
            for (a, b) in (0..8).flat_map(|a| (0..8).map(move |b| (a, b))).filter(|(a, b)| a != b) {
                assert_eq!(s.path(a, b), Path::NvLink(links), "{name} {a}-{b}");
                assert_eq!(s.peer_mbps(a, b), u64::from(links) * 25_000);
                assert!(s.p2p(a, b));
            }
            assert_eq!(s.path(3, 3), Path::Same);
            assert!(s.topology_matrix().contains(&format!("GPU0      X  NV{links}  NV{links}")), "{name}");
        }
        // A GPU has only its ports: a V100 on an NVSwitch of twelve links is refused.
        let mut bad = SystemConfig::preset("dgx-a100").unwrap();
        bad.gpus = vec![DeviceConfig::default(); 8];
        assert!(bad.validate().unwrap_err().contains("12 NVLinks; it has 6 ports"));
    }

    #[test]
    fn pcie_paths_follow_the_tree() {
        let s = SystemConfig::preset("gv100x4").unwrap();
        assert_eq!((s.path(0, 1), s.path(0, 2), s.path(1, 1)), (Path::Pix, Path::Phb, Path::Same));
        let big = SystemConfig::pcie("x8", DeviceConfig::default(), 8);
        assert_eq!(big.path(0, 7), Path::Sys);
        assert_eq!(big.peer_mbps(0, 7), 9_000);
    }

    #[test]
    fn addresses_never_overlap_and_are_found() {
        let s = SystemConfig::preset("dgx1").unwrap();
        let vram = s.gpus[0].board.vram_size;
        for i in 0..8 {
            let p = s.placement(i);
            assert_eq!(s.gpu_of_phys(p.vram_base), Some((i, 0)));
            assert_eq!(s.gpu_of_phys(p.vram_base + vram - 1), Some((i, vram - 1)));
            assert_eq!(s.gpu_of_bus(p.bar0 + 0x100), Some(i));
            assert_eq!(s.gpu_of_bus(p.bar1 + 4096), Some(i));
            assert_eq!(p.bdf, (0, i as u8, 0, 0));
        }
        assert_eq!(s.gpu_of_phys(s.placement(7).vram_base + vram), None);
    }

    #[test]
    fn bad_systems_are_refused_by_name() {
        let mut s = SystemConfig::preset("gv100x2").unwrap();
        s.interconnect.nvlinks = vec![(0, 1, 7)];
        assert!(s.validate().unwrap_err().contains("6 ports"));
        s.interconnect.nvlinks = vec![(0, 2, 1)];
        assert!(s.validate().unwrap_err().contains("not between two GPUs"));
        s.interconnect.nvlinks.clear();
        s.gpus.clear();
        assert!(s.validate().unwrap_err().contains("1 to 16 GPUs"));
    }
}
