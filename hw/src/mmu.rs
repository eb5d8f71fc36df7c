//! Fermi MMU formats: 40-bit virtual addresses, a page directory of 8192 entries (one per
//! 128 MiB), small (4 KiB) and big (128 KiB) page tables, 64-bit PDEs and PTEs.
//!
//! Source: envytools `hw/memory/g80-vm` / nouveau `nvkm/subdev/mmu/gf100.c`, docs/hardware.md.
//! Note that the aperture encodings differ: VRAM is 1 in a PDE but 0 in a PTE.

use crate::regs::Target;
use modular_bitfield::prelude::*;

/// Virtual address width.
pub const VA_BITS: u32 = 40;
/// Small page size shift (4 KiB).
pub const PAGE_SHIFT: u32 = 12;
/// Small page size.
pub const PAGE_SIZE: u64 = 1 << PAGE_SHIFT;
/// Big page size shift (128 KiB).
pub const BIG_PAGE_SHIFT: u32 = 17;
/// Big page size.
pub const BIG_PAGE_SIZE: u64 = 1 << BIG_PAGE_SHIFT;
/// Each PDE covers 128 MiB.
pub const PDE_SHIFT: u32 = 27;
/// Bytes of VA covered by one PDE.
pub const PDE_SPAN: u64 = 1 << PDE_SHIFT;
/// Entries in the page directory.
pub const PD_ENTRIES: u64 = 1 << (VA_BITS - PDE_SHIFT);
/// Entries in a small page table.
pub const SPT_ENTRIES: u64 = 1 << (PDE_SHIFT - PAGE_SHIFT);
/// Entries in a big page table.
pub const BPT_ENTRIES: u64 = 1 << (PDE_SHIFT - BIG_PAGE_SHIFT);
/// Size of one PDE or PTE.
pub const ENTRY_SIZE: u64 = 8;
/// Bytes of a page directory.
pub const PD_BYTES: u64 = PD_ENTRIES * ENTRY_SIZE;
/// Bytes of a small page table.
pub const SPT_BYTES: u64 = SPT_ENTRIES * ENTRY_SIZE;
/// Bytes of a big page table.
pub const BPT_BYTES: u64 = BPT_ENTRIES * ENTRY_SIZE;

/// Page directory index of a virtual address.
pub const fn pde_index(va: u64) -> u64 {
    (va >> PDE_SHIFT) & (PD_ENTRIES - 1)
}
/// Small page table index of a virtual address.
pub const fn spte_index(va: u64) -> u64 {
    (va >> PAGE_SHIFT) & (SPT_ENTRIES - 1)
}
/// Big page table index of a virtual address.
pub const fn bpte_index(va: u64) -> u64 {
    (va >> BIG_PAGE_SHIFT) & (BPT_ENTRIES - 1)
}

/// PDE aperture of a page table.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq)]
#[bits = 2]
pub enum PdeAperture {
    /// No table.
    None = 0,
    /// Table in video memory.
    Vram = 1,
    /// Table in snooped system memory.
    SysCoherent = 2,
    /// Table in non-snooped system memory.
    SysNonCoherent = 3,
}

impl PdeAperture {
    /// The memory target this aperture names, if any.
    pub fn target(self) -> Option<Target> {
        match self {
            Self::None => None,
            Self::Vram => Some(Target::Vram),
            Self::SysCoherent => Some(Target::SysCoherent),
            Self::SysNonCoherent => Some(Target::SysNonCoherent),
        }
    }
}

/// Page directory entry (64-bit).
#[bitfield(bits = 64)]
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pde {
    /// Aperture of the big page table.
    pub big_aperture: PdeAperture,
    #[skip]
    __: B2,
    /// Big page table address >> 12.
    pub big_addr: B28,
    /// Aperture of the small page table.
    pub small_aperture: PdeAperture,
    #[skip]
    __: B2,
    /// Small page table address >> 12.
    pub small_addr: B28,
}

/// Page table entry (64-bit), the same format for small and big pages.
#[bitfield(bits = 64)]
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pte {
    /// The entry maps a page.
    pub valid: bool,
    /// Only privileged clients may access the page.
    pub privileged: bool,
    /// Writes fault.
    pub read_only: bool,
    #[skip]
    __: B1,
    /// Physical address >> 12.
    pub addr: B28,
    #[skip]
    __: B1,
    /// Memory target of the page.
    pub target: Target,
    #[skip]
    __: B1,
    /// Storage kind (0 = pitch/linear).
    pub kind: B8,
    /// With target [`Target::Peer`]: the peer table entry (NV_PFB_PEER) naming the GPU
    /// whose VRAM `addr` is (rgdev's extension, in bits Fermi reserves).
    pub peer: B3,
    #[skip]
    __: B17,
}

impl Pte {
    /// A valid, writable, linear mapping of `phys` in `target`.
    pub fn map(phys: u64, target: Target) -> Self {
        Self::new().with_valid(true).with_addr((phys >> PAGE_SHIFT) as u32).with_target(target)
    }
    /// A valid, writable mapping of `phys` in the VRAM of the GPU peer table entry `peer`
    /// names.
    pub fn map_peer(phys: u64, peer: u8) -> Self {
        Self::map(phys, Target::Peer).with_peer(peer & (PEERS as u8 - 1))
    }
    /// Physical address of the page.
    pub fn phys(&self) -> u64 {
        (self.addr() as u64) << PAGE_SHIFT
    }
}

/// Entries of the peer table (NV_PFB_PEER), as many as a PTE's `peer` field names.
pub const PEERS: usize = 8;
/// A peer page's address as the MMU hands it on: the peer table entry above this bit,
/// the address in the peer's VRAM below (VRAM addresses are 40 bits).
pub const PEER_SHIFT: u32 = 40;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pde_fields_sit_where_the_datasheet_says() {
        let pde = Pde::new().with_small_aperture(PdeAperture::Vram).with_small_addr(0xABCDE);
        assert_eq!(u64::from(pde), (1u64 << 32) | (0xABCDEu64 << 36));
        let pde = Pde::new().with_big_aperture(PdeAperture::SysCoherent).with_big_addr(0x12345);
        assert_eq!(u64::from(pde), 2 | (0x12345 << 4));
    }

    #[test]
    fn pte_fields_sit_where_the_datasheet_says() {
        let pte = Pte::map(0x1234_5000, Target::SysNonCoherent).with_read_only(true).with_kind(0xFE);
        assert_eq!(u64::from(pte), 1 | 4 | (0x12345 << 4) | (3 << 33) | (0xFE << 36));
        assert_eq!(pte.phys(), 0x1234_5000);
        let peer = Pte::map_peer(0x1000, 5);
        assert_eq!(u64::from(peer), 1 | (1 << 4) | (1 << 33) | (5 << 44));
    }

    #[test]
    fn indices() {
        let va = (5u64 << 27) | (7 << 12) | 0x123;
        assert_eq!((pde_index(va), spte_index(va), bpte_index(va)), (5, 7, 0));
        assert_eq!(pde_index((1 << 40) - 1), PD_ENTRIES - 1);
        assert_eq!(PD_BYTES, 64 * 1024);
        assert_eq!(SPT_BYTES, 256 * 1024);
    }
}
