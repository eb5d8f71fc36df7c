//! The peer port: how this GPU reaches another GPU's VRAM (rgdev's peer aperture, after
//! the PEER aperture of later NVIDIA MMUs). A PTE with target PEER names an entry of the
//! peer table (NV_PFB_PEER), which holds the peer's PCI routing id; the machine (the
//! system's interconnect, fake-pci's `machine`: above memory, which never names it) lends
//! the port the VRAM of each peer the table names while this GPU runs an open slice, with
//! the link's figures (in a closed slice the gate, `gate.rs`, holds peer accesses
//! back until the next one). An access to a peer that is not lent (no entry, an entry naming no GPU of the
//! system, or a peer the topology does not connect) fails with a bus error, a fault of the
//! accessing context.
//!
//! The port counts the bytes it moves, so the timing model can charge the link: loads and
//! stores of the SMs (`timing`) and copies (`copy`).

use crate::vram::{Vram, VramError};
use alloc::vec::Vec;
use core::cell::Cell;
use hw::mmu::{PEER_SHIFT, PEERS};
use hw::regs::FaultReason;

/// A link to a peer as the platform's interconnect model describes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// Bandwidth per direction, MB/s.
    pub mbps: u64,
    /// One-way latency in this GPU's cycles.
    pub latency_cycles: u64,
}

/// Bit 63 of a physical address marks one the MMU made from a peer PTE (no other path
/// names peer memory; a PRAMIN window or runlist with target PEER is invalid).
pub const PEER_MARK: u64 = 1 << 63;

/// The physical address the MMU hands on for offset `pa` of peer table entry `slot`.
pub fn peer_address(slot: u8, pa: u64) -> u64 {
    PEER_MARK | u64::from(slot) << PEER_SHIFT | (pa & ((1 << PEER_SHIFT) - 1))
}

/// One peer's VRAM, lent by the platform for a run.
pub struct Lent {
    /// The peer's routing id.
    pub rid: u16,
    /// Its VRAM.
    pub vram: Vram,
    /// Its initcheck shadow, when it keeps one: peer stores mark it, and peer loads of a
    /// checked grid are checked against it.
    pub shadow: Option<crate::shadow::Shadow>,
    /// The link to it.
    pub link: Link,
}

/// The peer table's entries (routing ids, from NV_PFB_PEER), the VRAM lent, and traffic.
#[derive(Default)]
pub struct Peers {
    /// Entry `i`: the routing id of the GPU it names, if valid.
    pub table: [Option<u16>; PEERS],
    /// What the platform lent for the current run.
    pub lent: Vec<Lent>,
    /// Bytes read from and written to peers so far (the timing model takes differences;
    /// reads count through a shared reference, as memory reads are made).
    pub read_bytes: Cell<u64>,
    /// See `read_bytes`.
    pub write_bytes: u64,
    /// The link of the last peer access.
    pub last_link: Cell<Link>,
    /// The links to the peers the machine connects, lent or not: (routing id, link).
    pub links: Vec<(u16, Link)>,
}

impl Peers {
    /// The lent VRAM and link of the peer a marked address names, and the offset in it.
    fn find(&self, pa: u64) -> Result<(usize, u64), FaultReason> {
        if pa & PEER_MARK == 0 {
            return Err(FaultReason::InvalidTarget);
        }
        let slot = ((pa >> PEER_SHIFT) as usize) & (PEERS - 1);
        let rid = self.table[slot].ok_or(FaultReason::InvalidTarget)?;
        let off = pa & ((1 << PEER_SHIFT) - 1);
        let i = self.lent.iter().position(|l| l.rid == rid).ok_or(FaultReason::BusError)?;
        Ok((i, off))
    }

    /// The routing id a marked address's peer table entry names, if valid.
    pub fn rid_of(&self, pa: u64) -> Option<u16> {
        (pa & PEER_MARK != 0).then(|| self.table[((pa >> PEER_SHIFT) as usize) & (PEERS - 1)]).flatten()
    }

    /// Read peer memory.
    pub fn read(&self, pa: u64, buf: &mut [u8]) -> Result<(), FaultReason> {
        let (i, off) = self.find(pa)?;
        let l = &self.lent[i];
        l.vram.read(off, buf).map_err(|_| FaultReason::BusError)?;
        self.last_link.set(l.link);
        self.read_bytes.set(self.read_bytes.get() + buf.len() as u64);
        Ok(())
    }

    /// Write peer memory.
    pub fn write(&mut self, pa: u64, data: &[u8]) -> Result<(), FaultReason> {
        let (i, off) = self.find(pa)?;
        let l = &mut self.lent[i];
        l.vram.write(off, data).map_err(|e| match e {
            VramError::OutOfRange => FaultReason::BusError,
            VramError::NoBacking => FaultReason::NoBacking,
        })?;
        if let Some(s) = l.shadow.as_mut() {
            s.mark(off, data.len() as u64);
        }
        self.last_link.set(l.link);
        self.write_bytes += data.len() as u64;
        Ok(())
    }

    /// Whether the peer bytes at marked address `pa` were written since their allocation,
    /// by the peer's initcheck shadow (true where it keeps none).
    pub fn written(&self, pa: u64, len: u64) -> bool {
        self.find(pa).map_or(true, |(i, off)| self.lent[i].shadow.as_ref().is_none_or(|s| s.written(off, len)))
    }

    /// Bytes moved to and from peers so far.
    pub fn traffic(&self) -> u64 {
        self.read_bytes.get() + self.write_bytes
    }

    /// The link to the peer a marked address names, if the machine connects it (lent or
    /// not: a copy's time is known before its data moves).
    pub fn link_of(&self, pa: u64) -> Option<Link> {
        let rid = self.rid_of(pa)?;
        let lent = self.lent.iter().find(|l| l.rid == rid).map(|l| l.link);
        lent.or_else(|| self.links.iter().find(|(r, _)| *r == rid).map(|(_, l)| *l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_access_needs_a_mark_an_entry_and_a_lent_peer() {
        let mut p = Peers::default();
        let mut b = [0u8; 4];
        assert_eq!(p.read(0x1000, &mut b), Err(FaultReason::InvalidTarget), "no mark: not from a PTE");
        assert_eq!(p.read(peer_address(2, 0x1000), &mut b), Err(FaultReason::InvalidTarget), "no entry");
        p.table[2] = Some(0x0100);
        assert_eq!(p.read(peer_address(2, 0x1000), &mut b), Err(FaultReason::BusError), "not lent");
        let link = Link { mbps: 25_000, latency_cycles: 1000 };
        p.lent.push(Lent { rid: 0x0100, vram: Vram::new(1 << 20), shadow: None, link });
        p.write(peer_address(2, 0x1000), &[1, 2, 3, 4]).unwrap();
        p.read(peer_address(2, 0x1000), &mut b).unwrap();
        assert_eq!((b, p.read_bytes.get(), p.write_bytes, p.last_link.get()), ([1, 2, 3, 4], 4, 4, link));
        assert_eq!(p.lent[0].vram.read_u32(0x1000), Ok(0x0403_0201), "the peer's own VRAM");
        assert_eq!(p.write(peer_address(2, 1 << 20), &[1]), Err(FaultReason::BusError), "past its end");
    }
}
