//! A queue of values kept in the order of their times: the programs' ends with the
//! controller work each leaves, the write buffer's frees.

/// A value due at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Timed {
    pub(super) at: u64,
    pub(super) value: u64,
}

/// Values in the order of their times, equal times in the order they came. A program
/// booked now mostly ends after those booked before it, so a new entry mostly goes in at
/// the back or a few places from it, found by a walk back from the end; one that belongs
/// deeper (dies whose backlogs differ by many programs, a buffer written out at once) is
/// placed by a binary search instead. Taken from the front; the room of those taken is
/// reclaimed once they are half the vector.
#[derive(Debug, Clone, Default)]
pub(super) struct TimeQueue {
    items: Vec<Timed>,
    /// The first entry not yet taken.
    head: usize,
}

/// How far back from the end a new entry's place is looked for one entry at a time before
/// a binary search takes over.
const WALK: usize = 8;

impl TimeQueue {
    /// Puts `value` due `at` after every entry due no later than it.
    pub(super) fn push(&mut self, at: u64, value: u64) {
        let new = Timed { at, value };
        // Appended, then moved back past the later entries one place at a time, each
        // compared once (a Vec::insert would compare them, then move them in a second pass).
        self.items.push(new);
        let items = &mut self.items[self.head..];
        let end = items.len() - 1;
        let stop = end.saturating_sub(WALK);
        let mut k = end;
        while k > stop && items[k - 1].at > at {
            items[k] = items[k - 1];
            k -= 1;
        }
        if k == stop && k > 0 && items[k - 1].at > at {
            let deep = items[..k].partition_point(|t| t.at <= at);
            items[deep..=k].rotate_right(1);
            k = deep;
        }
        items[k] = new;
    }

    /// The earliest entry.
    pub(super) fn front(&self) -> Option<Timed> {
        self.items.get(self.head).copied()
    }

    /// Takes the earliest entry.
    pub(super) fn pop_front(&mut self) -> Option<Timed> {
        let first = self.items.get(self.head).copied()?;
        self.head += 1;
        if self.head == self.items.len() {
            self.clear();
        } else if self.head >= 64 && 2 * self.head >= self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
        Some(first)
    }

    /// The latest time due (`None` if empty).
    pub(super) fn last_at(&self) -> Option<u64> {
        self.items[self.head..].last().map(|t| t.at)
    }

    /// The entries, earliest first.
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = &Timed> {
        self.items[self.head..].iter()
    }

    /// Empties the queue.
    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drained(q: &mut TimeQueue) -> Vec<(u64, u64)> {
        std::iter::from_fn(|| q.pop_front().map(|t| (t.at, t.value))).collect()
    }

    #[test]
    fn entries_come_out_by_time_and_equal_times_in_the_order_they_came() {
        let mut q = TimeQueue::default();
        for (at, value) in [(5, 1), (9, 2), (7, 3), (5, 4), (1, 5), (9, 6)] {
            q.push(at, value);
        }
        assert_eq!(q.last_at(), Some(9));
        assert_eq!(q.front(), Some(Timed { at: 1, value: 5 }));
        assert_eq!(
            drained(&mut q),
            [(1, 5), (5, 1), (5, 4), (7, 3), (9, 2), (9, 6)]
        );
        assert_eq!(q.front(), None);
        assert_eq!(q.last_at(), None);
    }

    #[test]
    fn taking_and_pushing_by_turns_matches_a_sorted_list_past_the_reclaimed_room() {
        // Pushes run ahead of takes, so the front's room is reclaimed while entries
        // remain; each new entry a few places from the back, or at it, and every 50th
        // far deeper than the walk from the back goes (a binary search's place).
        let (mut q, mut list) = (TimeQueue::default(), Vec::<(u64, u64)>::new());
        for i in 0..1000u64 {
            let at = match i % 50 {
                49 => (10 * i).saturating_sub(300),
                _ => 10 * i + [40, 0, 25, 10][(i % 4) as usize],
            };
            q.push(at, i);
            let k = list.partition_point(|&(t, _)| t <= at);
            list.insert(k, (at, i));
            if i % 3 != 0 {
                assert_eq!(q.pop_front().map(|t| (t.at, t.value)), Some(list.remove(0)));
            }
            assert_eq!(q.last_at(), list.last().map(|&(t, _)| t));
        }
        assert_eq!(drained(&mut q), list);
    }
}
