//! The Fermi MMU: page-directory walk, small (4 KiB) and big (128 KiB) pages, permission
//! checks, and a small TLB that only an explicit flush (NV_PFB_TLB_FLUSH_* or the host's
//! MEM_OP) invalidates — a driver that forgets the flush sees stale translations, as on
//! real hardware.
//!
//! Physical accesses go to sparse VRAM or to the registered DMA regions ([`Memory`]).
//! Every failure becomes a [`Fault`] carrying the datasheet reason; nothing panics on
//! garbage page tables.

use crate::sysmem::SysMem;
use crate::vram::Vram;
use hw::mmu::{self, Pde, Pte};
use hw::regs::{FaultReason, Target};

/// Physical memory behind the MMU.
pub struct Memory {
    /// Video memory.
    pub vram: Vram,
    /// System memory regions registered for DMA.
    pub sys: SysMem,
    /// Bus mastering enabled in PCI config space (system memory accesses fail without it).
    pub bus_master: bool,
    /// Write epoch: advances with every write through [`Memory::write`], every store to
    /// shared or local memory, and every time the host enters the device (it may have
    /// written DMA memory behind the device's back). A warp whose loop repeats its state
    /// exactly while the epoch stands still is spinning: it cannot change anything.
    pub epoch: u64,
    /// Initcheck's record of the VRAM bytes written (NV_PFB_CHECK_SHADOW on).
    pub shadow: Option<crate::shadow::Shadow>,
    /// Other GPUs' VRAM, through the peer table (PTEs with target PEER).
    pub peers: crate::peer::Peers,
    /// The machine's gate on memory other GPUs reach (peers, shared host regions).
    pub gate: crate::gate::Gate,
}

impl Memory {
    /// The gate's word on an access to `target` at `pa` (see [`crate::gate`]): a closed
    /// gate is a bus error the engine waits out.
    #[inline]
    pub fn gate(&self, target: Target, pa: u64, write: bool) -> Result<(), FaultReason> {
        let g = match target {
            Target::SysCoherent | Target::SysNonCoherent if write && !self.gate.shared.is_empty() => {
                self.gate.host(self.sys.region_id(pa), write)
            }
            Target::Peer => self.gate.peer(self.peers.rid_of(pa)),
            _ => Ok(()),
        };
        g.map_err(|_| FaultReason::BusError)
    }

    /// Read physical memory.
    pub fn read(&self, target: Target, pa: u64, buf: &mut [u8]) -> Result<(), FaultReason> {
        self.gate(target, pa, false)?;
        match target {
            Target::Vram => self.vram.read(pa, buf).map_err(|_| FaultReason::BusError),
            Target::SysCoherent | Target::SysNonCoherent if self.bus_master => {
                self.sys.read(pa, buf).map_err(|_| FaultReason::BusError)
            }
            Target::Peer => self.peers.read(pa, buf),
            _ => Err(FaultReason::BusError),
        }
    }

    /// Write physical memory.
    pub fn write(&mut self, target: Target, pa: u64, data: &[u8]) -> Result<(), FaultReason> {
        self.gate(target, pa, true)?;
        self.epoch = self.epoch.wrapping_add(1);
        if target == Target::Vram
            && let Some(s) = self.shadow.as_mut()
        {
            s.mark(pa, data.len() as u64);
        }
        match target {
            Target::Vram => self.vram.write(pa, data).map_err(|e| match e {
                crate::vram::VramError::OutOfRange => FaultReason::BusError,
                crate::vram::VramError::NoBacking => FaultReason::NoBacking,
            }),
            Target::SysCoherent | Target::SysNonCoherent if self.bus_master => {
                self.sys.write(pa, data).map_err(|_| FaultReason::BusError)
            }
            Target::Peer => self.peers.write(pa, data),
            _ => Err(FaultReason::BusError),
        }
    }

    /// Read a little-endian u64.
    pub fn read_u64(&self, target: Target, pa: u64) -> Result<u64, FaultReason> {
        let mut b = [0u8; 8];
        self.read(target, pa, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Read a little-endian u32 (acquire ordering in system memory).
    pub fn read_u32(&self, target: Target, pa: u64) -> Result<u32, FaultReason> {
        match target {
            Target::SysCoherent | Target::SysNonCoherent if self.bus_master && pa.is_multiple_of(4) => {
                self.gate(target, pa, false)?;
                self.sys.load_u32_acquire(pa).map_err(|_| FaultReason::BusError)
            }
            _ => {
                let mut b = [0u8; 4];
                self.read(target, pa, &mut b)?;
                Ok(u32::from_le_bytes(b))
            }
        }
    }

    /// Write a little-endian u32 (release ordering in system memory: semaphore payloads).
    pub fn write_u32(&mut self, target: Target, pa: u64, v: u32) -> Result<(), FaultReason> {
        match target {
            Target::SysCoherent | Target::SysNonCoherent if self.bus_master && pa.is_multiple_of(4) => {
                self.gate(target, pa, true)?;
                self.sys.store_u32_release(pa, v).map_err(|_| FaultReason::BusError)
            }
            _ => self.write(target, pa, &v.to_le_bytes()),
        }
    }
}

/// A virtual address space as an instance block describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressSpace {
    /// Instance block address (for fault records).
    pub inst: u64,
    /// Page directory address.
    pub pd: u64,
    /// Where the page directory lives.
    pub pd_target: Target,
    /// Highest valid virtual address.
    pub limit: u64,
    /// Compute accesses that find no PTE park and are recorded for replay (INST_PD_LO
    /// `replayable`) rather than failing.
    pub replayable: bool,
}

impl AddressSpace {
    /// Read the page directory pointer and VA limit from the instance block at `inst`.
    pub fn from_instance(mem: &Memory, inst: u64) -> Result<Self, FaultReason> {
        use hw::inst::*;
        let rd = |off: u32| mem.read_u32(Target::Vram, inst + off as u64);
        let lo = InstPdLo::from(rd(INST_PD_LO)?);
        let pd = (lo.addr_lo() as u64) << 12 | (rd(INST_PD_HI)? as u64) << 32;
        let pd_target = lo.target_or_err().map_err(|_| FaultReason::InvalidTarget)?;
        if pd_target == Target::Peer {
            return Err(FaultReason::InvalidTarget);
        }
        let limit = rd(INST_VA_LIMIT_LO)? as u64 | (rd(INST_VA_LIMIT_HI)? as u64) << 32;
        Ok(Self { inst, pd, pd_target, limit, replayable: lo.replayable() })
    }
}

/// A translation failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Faulting virtual address.
    pub va: u64,
    /// Why.
    pub reason: FaultReason,
    /// The access was a write.
    pub write: bool,
}

#[derive(Clone, Copy, Debug)]
struct TlbEntry {
    pd: u64,
    vpn: u64,
    target: Target,
    page: u64,
    read_only: bool,
    privileged: bool,
    used: u64,
}

const TLB_SETS: usize = 64;
const TLB_WAYS: usize = 4;

/// A 4-way set-associative TLB of 4 KiB translations (64 sets, LRU), tagged by page
/// directory. Deterministic: the same accesses always evict the same entries.
pub struct Tlb {
    sets: [[Option<TlbEntry>; TLB_WAYS]; TLB_SETS],
    clock: u64,
    /// Lookups that hit.
    pub hits: u64,
    /// Lookups that walked the page tables.
    pub misses: u64,
}

impl Default for Tlb {
    fn default() -> Self {
        Self { sets: [[None; TLB_WAYS]; TLB_SETS], clock: 0, hits: 0, misses: 0 }
    }
}

impl Tlb {
    /// Forget every translation made through the page directory at `pd`.
    pub fn flush_pd(&mut self, pd: u64) {
        for e in self.sets.iter_mut().flatten() {
            if e.is_some_and(|t| t.pd == pd) {
                *e = None;
            }
        }
    }

    fn set(pd: u64, vpn: u64) -> usize {
        let h = (vpn ^ (pd >> 12).rotate_left(20)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 58) as usize % TLB_SETS
    }

    fn lookup(&mut self, pd: u64, vpn: u64) -> Option<TlbEntry> {
        self.clock += 1;
        let now = self.clock;
        let set = &mut self.sets[Self::set(pd, vpn)];
        let e = set.iter_mut().flatten().find(|e| e.pd == pd && e.vpn == vpn)?;
        e.used = now;
        Some(*e)
    }

    fn insert(&mut self, e: TlbEntry) {
        let set = &mut self.sets[Self::set(e.pd, e.vpn)];
        let victim = set
            .iter()
            .position(|w| w.is_none())
            .unwrap_or_else(|| (0..TLB_WAYS).min_by_key(|&i| set[i].map_or(0, |w| w.used)).unwrap_or(0));
        set[victim] = Some(TlbEntry { used: self.clock, ..e });
    }

    /// Translate `va` for a read or write by an unprivileged client.
    pub fn translate(
        &mut self,
        mem: &Memory,
        space: &AddressSpace,
        va: u64,
        write: bool,
    ) -> Result<(Target, u64), Fault> {
        let fault = |reason| Fault { va, reason, write };
        if va > space.limit || va >> mmu::VA_BITS != 0 {
            return Err(fault(FaultReason::VaLimitExceeded));
        }
        let vpn = va >> mmu::PAGE_SHIFT;
        let e = match self.lookup(space.pd, vpn) {
            Some(e) => {
                self.hits += 1;
                e
            }
            None => {
                self.misses += 1;
                let e = walk(mem, space, va).map_err(fault)?;
                self.insert(e);
                e
            }
        };
        if e.privileged {
            return Err(fault(FaultReason::Privileged));
        }
        if write && e.read_only {
            return Err(fault(FaultReason::ReadOnly));
        }
        Ok((e.target, e.page | (va & (mmu::PAGE_SIZE - 1))))
    }

    /// Read `buf.len()` bytes at virtual address `va`.
    pub fn read_va(&mut self, mem: &Memory, space: &AddressSpace, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        let mut done = 0usize;
        while done < buf.len() {
            let a =
                va.checked_add(done as u64).ok_or(Fault { va, reason: FaultReason::VaLimitExceeded, write: false })?;
            let n = (mmu::PAGE_SIZE - (a & (mmu::PAGE_SIZE - 1))).min((buf.len() - done) as u64) as usize;
            let (t, pa) = self.translate(mem, space, a, false)?;
            mem.read(t, pa, &mut buf[done..done + n]).map_err(|reason| Fault { va: a, reason, write: false })?;
            done += n;
        }
        Ok(())
    }

    /// Write `data` at virtual address `va`.
    pub fn write_va(&mut self, mem: &mut Memory, space: &AddressSpace, va: u64, data: &[u8]) -> Result<(), Fault> {
        let mut done = 0usize;
        while done < data.len() {
            let a =
                va.checked_add(done as u64).ok_or(Fault { va, reason: FaultReason::VaLimitExceeded, write: true })?;
            let n = (mmu::PAGE_SIZE - (a & (mmu::PAGE_SIZE - 1))).min((data.len() - done) as u64) as usize;
            let (t, pa) = self.translate(mem, space, a, true)?;
            mem.write(t, pa, &data[done..done + n]).map_err(|reason| Fault { va: a, reason, write: true })?;
            done += n;
        }
        Ok(())
    }

    /// Read an aligned u32 at `va` (acquire ordering in system memory).
    pub fn read_va_u32(&mut self, mem: &Memory, space: &AddressSpace, va: u64) -> Result<u32, Fault> {
        let (t, pa) = self.translate(mem, space, va, false)?;
        mem.read_u32(t, pa).map_err(|reason| Fault { va, reason, write: false })
    }

    /// Write an aligned u32 at `va` (release ordering in system memory).
    pub fn write_va_u32(&mut self, mem: &mut Memory, space: &AddressSpace, va: u64, v: u32) -> Result<(), Fault> {
        let (t, pa) = self.translate(mem, space, va, true)?;
        mem.write_u32(t, pa, v).map_err(|reason| Fault { va, reason, write: true })
    }
}

fn walk(mem: &Memory, space: &AddressSpace, va: u64) -> Result<TlbEntry, FaultReason> {
    let pde = Pde::from(mem.read_u64(space.pd_target, space.pd + mmu::pde_index(va) * mmu::ENTRY_SIZE)?);
    let small = pde.small_aperture_or_err().ok().and_then(|a| a.target());
    let big = pde.big_aperture_or_err().ok().and_then(|a| a.target());
    if small.is_none() && big.is_none() {
        return Err(FaultReason::PdeNotPresent);
    }
    let mut pte = None;
    if let Some(t) = small {
        let p = Pte::from(mem.read_u64(t, ((pde.small_addr() as u64) << 12) + mmu::spte_index(va) * mmu::ENTRY_SIZE)?);
        if p.valid() {
            pte = Some((p, 0));
        }
    }
    if pte.is_none()
        && let Some(t) = big
    {
        let p = Pte::from(mem.read_u64(t, ((pde.big_addr() as u64) << 12) + mmu::bpte_index(va) * mmu::ENTRY_SIZE)?);
        if p.valid() {
            // Offset of the 4 KiB sub-page inside the 128 KiB page.
            pte = Some((p, va & (mmu::BIG_PAGE_SIZE - 1) & !(mmu::PAGE_SIZE - 1)));
        }
    }
    let (p, sub) = pte.ok_or(FaultReason::PteNotPresent)?;
    let target = p.target_or_err().map_err(|_| FaultReason::InvalidTarget)?;
    // A peer page: the entry of the peer table rides above the address (`peer`).
    let page = match target {
        Target::Peer => crate::peer::peer_address(p.peer(), p.phys() + sub),
        _ => p.phys() + sub,
    };
    Ok(TlbEntry {
        pd: space.pd,
        vpn: va >> mmu::PAGE_SHIFT,
        target,
        page,
        read_only: p.read_only(),
        privileged: p.privileged(),
        used: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::sync::Arc;
    use hw::mmu::PdeAperture;

    fn setup() -> (Memory, AddressSpace) {
        let mut mem = Memory {
            vram: Vram::new(64 << 20),
            sys: SysMem::default(),
            bus_master: true,
            epoch: 0,
            shadow: None,
            peers: Default::default(),
            gate: Default::default(),
        };
        let space =
            AddressSpace { inst: 0, pd: 0x10000, pd_target: Target::Vram, limit: (1 << 40) - 1, replayable: false };
        // PDE 1 (VA 128 MiB..256 MiB): small table at 0x100000.
        let pde = Pde::new().with_small_aperture(PdeAperture::Vram).with_small_addr(0x100);
        mem.vram.write(0x10000 + 8, &u64::from(pde).to_le_bytes()).unwrap();
        (mem, space)
    }

    fn set_pte(mem: &mut Memory, va: u64, pte: Pte) {
        let at = 0x100000 + mmu::spte_index(va) * 8;
        mem.vram.write(at, &u64::from(pte).to_le_bytes()).unwrap();
    }

    #[test]
    fn walks_small_pages_and_reports_each_fault_reason() {
        let (mut mem, space) = setup();
        let mut tlb = Tlb::default();
        let va = (1 << 27) + 0x3000;
        set_pte(&mut mem, va, Pte::map(0x200000, Target::Vram));
        assert_eq!(tlb.translate(&mem, &space, va + 0x10, false), Ok((Target::Vram, 0x200010)));
        let e = |va, reason, write| Err(Fault { va, reason, write });
        assert_eq!(tlb.translate(&mem, &space, 0x1000, false), e(0x1000, FaultReason::PdeNotPresent, false));
        assert_eq!(tlb.translate(&mem, &space, va + 0x1000, true), e(va + 0x1000, FaultReason::PteNotPresent, true));
        set_pte(&mut mem, va + 0x2000, Pte::map(0x300000, Target::Vram).with_read_only(true));
        assert!(tlb.translate(&mem, &space, va + 0x2000, false).is_ok());
        assert_eq!(tlb.translate(&mem, &space, va + 0x2000, true), e(va + 0x2000, FaultReason::ReadOnly, true));
        set_pte(&mut mem, va + 0x4000, Pte::map(0x300000, Target::Vram).with_privileged(true));
        assert_eq!(tlb.translate(&mem, &space, va + 0x4000, false), e(va + 0x4000, FaultReason::Privileged, false));
        let small = AddressSpace { limit: 0xFFFF, ..space };
        assert_eq!(tlb.translate(&mem, &small, 0x10000, false), e(0x10000, FaultReason::VaLimitExceeded, false));
        set_pte(&mut mem, va + 0x5000, Pte::map(0x5000, Target::SysCoherent));
        assert_eq!(tlb.translate(&mem, &space, va + 0x5000, false), Ok((Target::SysCoherent, 0x5000)));
        let mut buf = [0u8; 4];
        assert_eq!(tlb.read_va(&mem, &space, va + 0x5000, &mut buf).unwrap_err().reason, FaultReason::BusError);
        mem.sys.map(0x5000, Arc::new(fifo::SharedMem::new(0x1000))).unwrap();
        tlb.write_va(&mut mem, &space, va + 0x5FFE, &[7, 8]).unwrap();
        assert_eq!(mem.sys.load_u32_acquire(0x5FFC).unwrap(), 0x0807_0000);
    }

    #[test]
    fn stale_translations_survive_until_flushed() {
        let (mut mem, space) = setup();
        let mut tlb = Tlb::default();
        let va = 1 << 27;
        set_pte(&mut mem, va, Pte::map(0x200000, Target::Vram));
        assert_eq!(tlb.translate(&mem, &space, va, false).unwrap().1, 0x200000);
        set_pte(&mut mem, va, Pte::map(0x400000, Target::Vram));
        assert_eq!(tlb.translate(&mem, &space, va, false).unwrap().1, 0x200000);
        tlb.flush_pd(space.pd);
        assert_eq!(tlb.translate(&mem, &space, va, false).unwrap().1, 0x400000);
    }

    #[test]
    fn a_full_set_evicts_its_least_recently_used_way() {
        let (mut mem, space) = setup();
        let mut tlb = Tlb::default();
        // Five pages that hash to the same set.
        let base = 1u64 << 27;
        let set = Tlb::set(space.pd, base >> 12);
        let pages: alloc::vec::Vec<u64> = (0..mmu::SPT_ENTRIES)
            .map(|i| base + i * mmu::PAGE_SIZE)
            .filter(|va| Tlb::set(space.pd, va >> 12) == set)
            .take(5)
            .collect();
        for (i, &va) in pages.iter().enumerate() {
            set_pte(&mut mem, va, Pte::map(0x200000 + i as u64 * 0x1000, Target::Vram));
        }
        for &va in &pages[..4] {
            tlb.translate(&mem, &space, va, false).unwrap();
        }
        tlb.translate(&mem, &space, pages[0], false).unwrap(); // pages[1] is now the LRU
        tlb.translate(&mem, &space, pages[4], false).unwrap();
        let misses = tlb.misses;
        tlb.translate(&mem, &space, pages[0], false).unwrap();
        tlb.translate(&mem, &space, pages[2], false).unwrap();
        assert_eq!(tlb.misses, misses, "recently used ways stay");
        tlb.translate(&mem, &space, pages[1], false).unwrap();
        assert_eq!(tlb.misses, misses + 1, "the LRU way was evicted");
    }

    #[test]
    fn big_pages_translate_with_the_sub_page_offset() {
        let (mut mem, space) = setup();
        let pde = Pde::new().with_big_aperture(PdeAperture::Vram).with_big_addr(0x180);
        mem.vram.write(0x10000 + 16, &u64::from(pde).to_le_bytes()).unwrap();
        let va = (2u64 << 27) + mmu::BIG_PAGE_SIZE * 3;
        let at = 0x180000 + 3 * 8;
        mem.vram.write(at, &u64::from(Pte::map(0x1000000, Target::Vram)).to_le_bytes()).unwrap();
        let mut tlb = Tlb::default();
        assert_eq!(tlb.translate(&mem, &space, va + 0x5123, false), Ok((Target::Vram, 0x1005123)));
    }
}
