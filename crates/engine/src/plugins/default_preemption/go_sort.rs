//! Go's `sort.Slice` (pattern-defeating quicksort, Go 1.19 and later), ported step for step from
//! `src/sort/zsortfunc.go` and `src/sort/slice.go` of the Go toolchain kube-scheduler is built with.
//!
//! Preemption sorts victims with `util.MoreImportantPod`, which is not a strict weak order: a pod
//! without `status.startTime` counts as started "now" (`time.Now()` at each comparison), so two such
//! pods of equal priority each compare as more important than the other. With such a comparator
//! the result depends on the exact algorithm, so Rust's sort cannot stand in for Go's: this module
//! reproduces Go's sequence of comparisons and swaps, and so its result, for any comparator.

/// Sorts `data` as Go's `sort.Slice(data, less)` does (not stable).
pub fn sort_slice<T>(data: &mut [T], mut less: impl FnMut(&T, &T) -> bool) {
    let length = data.len();
    // limit := bits.Len(uint(length))
    let limit = (usize::BITS - length.leading_zeros()) as usize;
    let mut d = Data {
        items: data,
        less: &mut less,
    };
    pdqsort(&mut d, 0, length, limit);
}

/// `lessSwap`: the slice and its comparator, compared and swapped by index.
struct Data<'a, T, F: FnMut(&T, &T) -> bool> {
    items: &'a mut [T],
    less: &'a mut F,
}

impl<T, F: FnMut(&T, &T) -> bool> Data<'_, T, F> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        (self.less)(&self.items[i], &self.items[j])
    }
    fn swap(&mut self, i: usize, j: usize) {
        self.items.swap(i, j);
    }
}

/// `sortedHint`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

/// `insertionSort_func`: sorts `data[a..b]`.
fn insertion_sort<T, F: FnMut(&T, &T) -> bool>(data: &mut Data<'_, T, F>, a: usize, b: usize) {
    for i in a + 1..b {
        let mut j = i;
        while j > a && data.less(j, j - 1) {
            data.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// `siftDown_func`: the heap property on `data[lo..hi]`, the root at offset `first`.
fn sift_down<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    lo: usize,
    hi: usize,
    first: usize,
) {
    let mut root = lo;
    loop {
        let mut child = 2 * root + 1;
        if child >= hi {
            break;
        }
        if child + 1 < hi && data.less(first + child, first + child + 1) {
            child += 1;
        }
        if !data.less(first + root, first + child) {
            return;
        }
        data.swap(first + root, first + child);
        root = child;
    }
}

/// `heapSort_func`.
fn heap_sort<T, F: FnMut(&T, &T) -> bool>(data: &mut Data<'_, T, F>, a: usize, b: usize) {
    let first = a;
    let hi = b - a;
    for i in (0..=(hi - 1) / 2).rev() {
        sift_down(data, i, hi, first);
    }
    for i in (0..hi).rev() {
        data.swap(first, first + i);
        sift_down(data, 0, i, first);
    }
}

/// `pdqsort_func`: sorts `data[a..b]`; `limit` bad pivots are allowed before heapsort.
fn pdqsort<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    mut a: usize,
    mut b: usize,
    mut limit: usize,
) {
    const MAX_INSERTION: usize = 12;
    let mut was_balanced = true;
    let mut was_partitioned = true;
    loop {
        let length = b - a;
        if length <= MAX_INSERTION {
            insertion_sort(data, a, b);
            return;
        }
        if limit == 0 {
            heap_sort(data, a, b);
            return;
        }
        if !was_balanced {
            break_patterns(data, a, b);
            limit -= 1;
        }
        let (mut pivot, mut hint) = choose_pivot(data, a, b);
        if hint == Hint::Decreasing {
            reverse_range(data, a, b);
            pivot = (b - 1) - (pivot - a);
            hint = Hint::Increasing;
        }
        if was_balanced
            && was_partitioned
            && hint == Hint::Increasing
            && partial_insertion_sort(data, a, b)
        {
            return;
        }
        if a > 0 && !data.less(a - 1, pivot) {
            a = partition_equal(data, a, b, pivot);
            continue;
        }
        let (mid, already_partitioned) = partition(data, a, b, pivot);
        was_partitioned = already_partitioned;
        let (left_len, right_len) = (mid - a, b - mid);
        let balance_threshold = length / 8;
        if left_len < right_len {
            was_balanced = left_len >= balance_threshold;
            pdqsort(data, a, mid, limit);
            a = mid + 1;
        } else {
            was_balanced = right_len >= balance_threshold;
            pdqsort(data, mid + 1, b, limit);
            b = mid;
        }
    }
}

/// `partition_func`: one quicksort partition around `data[pivot]`.
fn partition<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    a: usize,
    b: usize,
    pivot: usize,
) -> (usize, bool) {
    data.swap(a, pivot);
    // i and j are inclusive; j may go below a + 1 (to a), never below a, so isize is not needed
    // as long as the loops test `i <= j` first, as Go's do.
    let (mut i, mut j) = (a + 1, b - 1);
    while i <= j && data.less(i, a) {
        i += 1;
    }
    while i <= j && !data.less(j, a) {
        j -= 1;
    }
    if i > j {
        data.swap(j, a);
        return (j, true);
    }
    data.swap(i, j);
    i += 1;
    j -= 1;
    loop {
        while i <= j && data.less(i, a) {
            i += 1;
        }
        while i <= j && !data.less(j, a) {
            j -= 1;
        }
        if i > j {
            break;
        }
        data.swap(i, j);
        i += 1;
        j -= 1;
    }
    data.swap(j, a);
    (j, false)
}

/// `partitionEqual_func`: elements equal to `data[pivot]` first, then the greater ones.
fn partition_equal<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    a: usize,
    b: usize,
    pivot: usize,
) -> usize {
    data.swap(a, pivot);
    let (mut i, mut j) = (a + 1, b - 1);
    loop {
        while i <= j && !data.less(a, i) {
            i += 1;
        }
        while i <= j && data.less(a, j) {
            j -= 1;
        }
        if i > j {
            break;
        }
        data.swap(i, j);
        i += 1;
        j -= 1;
    }
    i
}

/// `partialInsertionSort_func`: true when `data[a..b]` ends up sorted.
fn partial_insertion_sort<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    a: usize,
    b: usize,
) -> bool {
    const MAX_STEPS: usize = 5;
    const SHORTEST_SHIFTING: usize = 50;
    let mut i = a + 1;
    for _ in 0..MAX_STEPS {
        while i < b && !data.less(i, i - 1) {
            i += 1;
        }
        if i == b {
            return true;
        }
        if b - a < SHORTEST_SHIFTING {
            return false;
        }
        data.swap(i, i - 1);
        if i - a >= 2 {
            let mut j = i - 1;
            while j >= 1 {
                if !data.less(j, j - 1) {
                    break;
                }
                data.swap(j, j - 1);
                j -= 1;
            }
        }
        if b - i >= 2 {
            for j in i + 1..b {
                if !data.less(j, j - 1) {
                    break;
                }
                data.swap(j, j - 1);
            }
        }
    }
    false
}

/// `breakPatterns_func`: a deterministic xorshift scatter, seeded by the length.
fn break_patterns<T, F: FnMut(&T, &T) -> bool>(data: &mut Data<'_, T, F>, a: usize, b: usize) {
    let length = b - a;
    if length >= 8 {
        let mut random = length as u64;
        // nextPowerOfTwo: 1 << bits.Len(length)
        let modulus = 1u64 << (u64::BITS - (length as u64).leading_zeros());
        let mut idx = a + (length / 4) * 2 - 1;
        while idx <= a + (length / 4) * 2 + 1 {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            let mut other = (random & (modulus - 1)) as usize;
            if other >= length {
                other -= length;
            }
            data.swap(idx, a + other);
            idx += 1;
        }
    }
}

/// `choosePivot_func`: a static pivot, the median of three or Tukey's ninther.
fn choose_pivot<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    a: usize,
    b: usize,
) -> (usize, Hint) {
    const SHORTEST_NINTHER: usize = 50;
    const MAX_SWAPS: usize = 4 * 3;
    let l = b - a;
    let mut swaps = 0;
    let mut i = a + l / 4;
    let mut j = a + l / 4 * 2;
    let mut k = a + l / 4 * 3;
    if l >= 8 {
        if l >= SHORTEST_NINTHER {
            i = median(data, i - 1, i, i + 1, &mut swaps);
            j = median(data, j - 1, j, j + 1, &mut swaps);
            k = median(data, k - 1, k, k + 1, &mut swaps);
        }
        j = median(data, i, j, k, &mut swaps);
    }
    match swaps {
        0 => (j, Hint::Increasing),
        MAX_SWAPS => (j, Hint::Decreasing),
        _ => (j, Hint::Unknown),
    }
}

/// `order2_func`.
fn order2<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    a: usize,
    b: usize,
    swaps: &mut usize,
) -> (usize, usize) {
    if data.less(b, a) {
        *swaps += 1;
        return (b, a);
    }
    (a, b)
}

/// `median_func`.
fn median<T, F: FnMut(&T, &T) -> bool>(
    data: &mut Data<'_, T, F>,
    a: usize,
    b: usize,
    c: usize,
    swaps: &mut usize,
) -> usize {
    let (a, b) = order2(data, a, b, swaps);
    let (b, c) = order2(data, b, c, swaps);
    let _ = c;
    let (_, b) = order2(data, a, b, swaps);
    b
}

/// `reverseRange_func`.
fn reverse_range<T, F: FnMut(&T, &T) -> bool>(data: &mut Data<'_, T, F>, a: usize, b: usize) {
    let (mut i, mut j) = (a, b - 1);
    while i < j {
        data.swap(i, j);
        i += 1;
        j -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::sort_slice;
    use alloc::vec::Vec;

    /// A small deterministic generator for the property tests.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn sorts_like_a_sort_under_a_strict_order() {
        let mut seed = 7;
        for len in [0usize, 1, 2, 5, 12, 13, 40, 49, 50, 51, 100, 333, 1000] {
            for _ in 0..5 {
                let mut v: Vec<u64> = (0..len).map(|_| lcg(&mut seed) % 17).collect();
                let mut expected = v.clone();
                expected.sort();
                sort_slice(&mut v, |a, b| a < b);
                assert_eq!(v, expected, "len {len}");
                v.reverse();
                sort_slice(&mut v, |a, b| a < b);
                assert_eq!(v, expected, "reversed, len {len}");
            }
        }
    }

    #[test]
    fn an_always_true_comparator_follows_go_insertion_sort() {
        // Go's insertion sort with less() == true reverses nothing but rotates: each new element
        // walks to the front, so [0, 1, 2, 3] becomes [3, 2, 1, 0].
        let mut v = [0, 1, 2, 3];
        sort_slice(&mut v, |_, _| true);
        assert_eq!(v, [3, 2, 1, 0]);
    }
}
