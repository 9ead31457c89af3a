//! Shared scoring maths. Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/helper/normalize_score.go`.

/// `MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

/// `DefaultNormalizeScore`: scales scores to `[0, max_priority]` by the largest score; with
/// `reverse`, `max_priority - score`. When every score is 0, reverse gives `max_priority` to all.
pub fn default_normalize_score(max_priority: i64, reverse: bool, scores: &mut [i64]) {
    let max_count = scores.iter().copied().fold(0, i64::max);
    if max_count == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = max_priority);
        }
        return;
    }
    for score in scores.iter_mut() {
        *score = max_priority * *score / max_count;
        if reverse {
            *score = max_priority - *score;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_reverses() {
        let mut scores = [0, 1, 2];
        default_normalize_score(100, true, &mut scores);
        assert_eq!(scores, [100, 50, 0]);
        let mut zeros = [0, 0];
        default_normalize_score(100, true, &mut zeros);
        assert_eq!(zeros, [100, 100]);
        let mut plain = [3, 1];
        default_normalize_score(100, false, &mut plain);
        assert_eq!(plain, [100, 33]);
    }
}
