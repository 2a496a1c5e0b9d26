//! The link toward the host as a bus that sends what is ready first: a read's data waits,
//! unbooked, until the simulation knows every transfer that could be ready before it, then
//! takes the link in the order the transfers became ready (first come, first served); a
//! transfer begun goes on while its next piece (a page's part) is ready as the last ends,
//! and where it must wait for one, the link takes what else is ready. A calendar that books
//! each transfer when its request is issued leaves the gaps shorter than a transfer unused
//! where a bus sends whatever is ready; this does not (docs/simulated-drives.md, "Out of
//! order").
//!
//! On a half-duplex link (SATA) the commands take the same bus: a command goes when it is
//! issued and the bus is free, after the data that was ready before it (at a tie the
//! drive's, as SATA gives the device the link when both ask at once).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::target::virtual_queue::Settled;

/// A part of a transfer: when its bytes are ready, and how long they take on the link.
#[derive(Debug, Clone, Copy)]
pub(super) struct Piece {
    pub(super) ready: u64,
    pub(super) len: u64,
}

/// A request's transfer waiting for the link: its pieces in order, each going no sooner
/// than the one before it ends.
#[derive(Debug)]
struct Waiting {
    /// The queue's tag of the request.
    tag: u32,
    pieces: Vec<Piece>,
    /// The next piece to send.
    next: usize,
}

/// The link toward the host, and the transfers waiting for it.
#[derive(Debug, Default)]
pub(super) struct Link {
    /// When the link is next free: every transfer begun ends by then.
    free: u64,
    /// The waiting transfers by when their next piece is ready (its own bytes, and the
    /// piece before it sent), the earliest issued first at a tie: (ready, seq, where).
    ready: BinaryHeap<Reverse<(u64, u64, usize)>>,
    /// The waiting transfers, and the places free among them.
    waiting: Vec<Waiting>,
    vacant: Vec<usize>,
    /// Piece lists given back, for the next transfers (no allocation a read).
    spare: Vec<Vec<Piece>>,
}

impl Link {
    /// An empty list for a transfer's pieces.
    pub(super) fn pieces(&mut self) -> Vec<Piece> {
        self.spare.pop().unwrap_or_default()
    }

    /// When the link is next free.
    pub(super) fn free(&self) -> u64 {
        self.free
    }

    /// Whether any transfer waits.
    pub(super) fn is_idle(&self) -> bool {
        self.ready.is_empty()
    }

    /// Request `seq`'s transfer (its queue's `tag`), its pieces in order, waits for the
    /// link.
    pub(super) fn wait(&mut self, seq: u64, tag: u32, pieces: Vec<Piece>) {
        let ready = pieces.first().map_or(0, |p| p.ready);
        let w = Waiting {
            tag,
            pieces,
            next: 0,
        };
        let at = match self.vacant.pop() {
            Some(k) => {
                self.waiting[k] = w;
                k
            }
            None => {
                self.waiting.push(w);
                self.waiting.len() - 1
            }
        };
        self.ready.push(Reverse((ready, seq, at)));
    }

    /// `len` ns sent from `now` (a command issued then), after the waiting data that was
    /// ready by then; returns when it has crossed. The data sent before it is settled into
    /// `out`.
    pub(super) fn send_now(&mut self, now: u64, len: u64, out: &mut Vec<Settled>) -> u64 {
        self.send(now, false, out);
        self.free = self.free.max(now) + len;
        self.free
    }

    /// Sends, in the order they became ready, the waiting pieces ready by `horizon` (no
    /// request issued from then on can be ready sooner), lowering it to each completion
    /// settled (the host may issue its next request then); a transfer whose last piece is
    /// sent is settled into `out`.
    pub(super) fn send_ready_by(&mut self, horizon: u64, out: &mut Vec<Settled>) {
        self.send(horizon, true, out);
    }

    /// Sends the waiting pieces ready by `until` in the order they became ready; with
    /// `lower`, `until` falls to each completion settled.
    fn send(&mut self, mut until: u64, lower: bool, out: &mut Vec<Settled>) {
        while let Some(&Reverse((ready, seq, k))) = self.ready.peek() {
            if ready > until {
                return;
            }
            self.ready.pop();
            let w = &mut self.waiting[k];
            self.free = self.free.max(ready) + w.pieces.get(w.next).map_or(0, |p| p.len);
            w.next += 1;
            // A transfer begun goes on while its next piece is ready as the last ends (one
            // DMA setup); where it must wait, the link takes what else is ready.
            while let Some(p) = w.pieces.get(w.next).filter(|p| p.ready <= self.free) {
                self.free += p.len;
                w.next += 1;
            }
            if let Some(p) = w.pieces.get(w.next) {
                self.ready.push(Reverse((p.ready, seq, k)));
                continue;
            }
            let mut pieces = std::mem::take(&mut w.pieces);
            pieces.clear();
            self.spare.push(pieces);
            self.vacant.push(k);
            out.push(Settled {
                tag: w.tag,
                at: self.free,
            });
            if lower {
                until = until.min(self.free);
            }
        }
    }

    /// Sends everything waiting (the drive left to finish), settling into `out`.
    pub(super) fn send_all(&mut self, out: &mut Vec<Settled>) {
        self.send(u64::MAX, false, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transfer's pieces, each (ready, len).
    fn of(pieces: &[(u64, u64)]) -> Vec<Piece> {
        pieces
            .iter()
            .map(|&(ready, len)| Piece { ready, len })
            .collect()
    }

    /// The settled completions as (tag, time): the tests tag each request with its seq.
    fn settled(out: &[Settled]) -> Vec<(u32, u64)> {
        out.iter().map(|s| (s.tag, s.at)).collect()
    }

    #[test]
    fn the_link_sends_what_is_ready_first_whatever_order_it_was_asked_in() {
        let mut l = Link::default();
        let mut out = Vec::new();
        // Asked first, ready last.
        l.wait(1, 1, of(&[(100, 10)]));
        l.wait(2, 2, of(&[(20, 10)]));
        l.wait(3, 3, of(&[(25, 10)]));
        l.send_ready_by(u64::MAX, &mut out);
        let got = settled(&out);
        // 2 from 20 to 30, 3 from 30 to 40 (ready at 25, the link busy), 1 from 100.
        assert_eq!(got, [(2, 30), (3, 40)]);
        // 1 is ready after the first completion (30): the host may ask for more by then.
        out.clear();
        l.send_all(&mut out);
        assert_eq!(settled(&out), [(1, 110)]);
    }

    #[test]
    fn a_gap_too_short_for_the_next_transfer_is_not_lost() {
        // A calendar that booked 1 at 100 when it was asked would put 2 (ready at 95, 10
        // long) after 110; sent as ready, 2 goes at 95 and 1 waits for it.
        let mut l = Link::default();
        let mut out = Vec::new();
        l.wait(1, 1, of(&[(100, 10)]));
        l.wait(2, 2, of(&[(95, 10)]));
        l.send_all(&mut out);
        assert_eq!(settled(&out), [(2, 105), (1, 115)]);
    }

    #[test]
    fn a_command_goes_after_the_data_ready_before_it_and_before_the_data_ready_after() {
        let mut l = Link::default();
        let mut out = Vec::new();
        l.wait(1, 1, of(&[(10, 20)]));
        l.wait(2, 2, of(&[(40, 20)]));
        // Issued at 15: behind 1 (10 to 30), ahead of 2.
        assert_eq!(l.send_now(15, 5, &mut out), 35);
        assert_eq!(settled(&out), [(1, 30)]);
        out.clear();
        l.send_all(&mut out);
        assert_eq!(settled(&out), [(2, 60)]);
    }

    #[test]
    fn a_transfers_pieces_go_in_order_and_others_go_between_them() {
        let mut l = Link::default();
        let mut out = Vec::new();
        l.wait(1, 1, of(&[(0, 10), (50, 10)]));
        l.wait(2, 2, of(&[(20, 10)]));
        l.send_all(&mut out);
        // 1's first piece 0-10, 2 from 20 to 30, 1's second from 50 to 60.
        assert_eq!(settled(&out), [(2, 30), (1, 60)]);
    }

    #[test]
    fn a_transfer_of_nothing_is_settled_when_it_is_ready() {
        let mut l = Link::default();
        let mut out = Vec::new();
        l.wait(1, 1, Vec::new());
        l.send_all(&mut out);
        assert_eq!(settled(&out), [(1, 0)]);
    }

    #[test]
    fn a_transfer_begun_goes_on_while_its_next_piece_is_ready() {
        let mut l = Link::default();
        let mut out = Vec::new();
        // 1's second piece is ready (at 8) when its first ends (10): it goes on, though 2
        // was ready sooner (at 5).
        l.wait(1, 1, of(&[(0, 10), (8, 10)]));
        l.wait(2, 2, of(&[(5, 10)]));
        l.send_all(&mut out);
        assert_eq!(settled(&out), [(1, 20), (2, 30)]);
    }
}
