//! A bus as a calendar of transfers (a link's direction toward the host, a flash
//! channel): data goes as soon as it is ready and the bus has room for it, before the data
//! of requests sent earlier that are still waiting for their dies (NCQ and NVMe complete
//! out of order), rather than behind them in submission order.

/// Busy intervals of the bus, `(start, end)` in ns, sorted and apart.
#[derive(Debug, Clone, Default)]
pub(crate) struct Calendar {
    busy: std::collections::VecDeque<(u64, u64)>,
    /// The latest `now` seen: what ended before it is forgotten, so nothing starts before it.
    floor: u64,
}

impl Calendar {
    /// Books `len` ns from the earliest time at or after `ready` that the bus is free for
    /// that long; returns when the transfer ends. `now` is the time the request was issued,
    /// before which no later request can be ready either: the transfers that ended by then
    /// are forgotten.
    pub fn reserve(&mut self, now: u64, ready: u64, len: u64) -> u64 {
        self.floor = self.floor.max(now);
        while self.busy.front().is_some_and(|&(_, end)| end <= self.floor) {
            self.busy.pop_front();
        }
        let ready = ready.max(self.floor);
        // Most transfers come after every one booked: appended.
        match self.busy.back_mut() {
            Some(last) if last.1 == ready => {
                last.1 = ready + len;
                return ready + len;
            }
            Some(&mut (_, end)) if end < ready => {
                self.busy.push_back((ready, ready + len));
                return ready + len;
            }
            None => {
                self.busy.push_back((ready, ready + len));
                return ready + len;
            }
            _ => {}
        }
        let mut start = ready;
        // The first interval that ends after `ready`.
        let mut k = self.busy.partition_point(|&(_, end)| end <= ready);
        while k < self.busy.len() {
            let (a, b) = self.busy[k];
            if start + len <= a {
                break;
            }
            start = start.max(b);
            k += 1;
        }
        let end = start + len;
        // Joined to its neighbours where it touches them.
        let touches_before = k > 0 && self.busy[k - 1].1 == start;
        let touches_after = k < self.busy.len() && self.busy[k].0 == end;
        match (touches_before, touches_after) {
            (true, true) => {
                self.busy[k - 1].1 = self.busy[k].1;
                self.busy.remove(k);
            }
            (true, false) => self.busy[k - 1].1 = end,
            (false, true) => self.busy[k].0 = start,
            (false, false) => self.busy.insert(k, (start, end)),
        }
        end
    }

    /// When the last booked transfer ends (0 with none).
    pub fn end(&self) -> u64 {
        self.busy.back().map_or(0, |&(_, end)| end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transfer_takes_the_first_gap_it_fits() {
        let mut c = Calendar::default();
        assert_eq!(c.reserve(0, 100, 10), 110);
        assert_eq!(c.reserve(0, 0, 5), 5);
        // Too long for the gap before 100: after 110.
        assert_eq!(c.reserve(0, 2, 100), 210);
        // Fits between 5 and 100.
        assert_eq!(c.reserve(0, 50, 50), 100);
        assert_eq!(c.busy, [(0, 5), (50, 210)]);
        // Issued at 150: the transfer that ended at 5 is forgotten.
        assert_eq!(c.reserve(150, 300, 10), 310);
        assert_eq!(c.busy, [(50, 210), (300, 310)]);
        assert_eq!(c.end(), 310);
    }
}
