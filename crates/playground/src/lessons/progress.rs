//! Where the learner is on the lesson path: the open lesson (or the final quiz), its locked
//! prediction, the lessons completed and the quiz's seed and answers. Kept in the page's storage
//! as one short line, so progress survives a reload.

use super::LESSONS;
use super::quiz::QUESTIONS;

/// Where the learner is in the lessons.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LessonProgress {
    /// Index into [`LESSONS`]; `LESSONS.len()` is the final quiz.
    pub lesson: usize,
    /// The learner's prediction (choice index) for this lesson, once made; locked once made
    /// (the answer is revealed with it).
    pub prediction: Option<usize>,
    /// Whether the lesson's scenario was loaded into the editor (and not replaced by an example
    /// since); the text may have been edited after.
    pub loaded: bool,
    /// Lessons completed (predicted, and the change made), one bit per lesson index.
    pub done: u64,
    /// The quiz's seed: the same seed, the same questions.
    pub quiz_seed: u64,
    /// The quiz answers given, per question.
    pub quiz_answers: [Option<usize>; QUESTIONS],
}

impl LessonProgress {
    /// Whether lesson `index` is completed.
    pub fn is_done(&self, index: usize) -> bool {
        index < 64 && self.done & (1 << index) != 0
    }

    /// Lessons completed.
    pub fn done_count(&self) -> usize {
        (0..LESSONS.len()).filter(|i| self.is_done(*i)).count()
    }

    /// Whether the open entry is the final quiz.
    pub fn in_quiz(&self) -> bool {
        self.lesson >= LESSONS.len()
    }

    /// The stored form: `v1 <lesson> <prediction|-> <loaded 0|1> <done> <seed> <answers a.b.c>`.
    pub fn encode(&self) -> String {
        let choice = |c: Option<usize>| c.map_or(String::from("-"), |c| c.to_string());
        let answers: Vec<String> = self.quiz_answers.iter().map(|a| choice(*a)).collect();
        format!(
            "v1 {} {} {} {} {} {}",
            self.lesson,
            choice(self.prediction),
            u8::from(self.loaded),
            self.done,
            self.quiz_seed,
            answers.join(".")
        )
    }

    /// Reads [`LessonProgress::encode`]'s form; `None` for anything else (a stale or edited
    /// entry starts the path afresh rather than failing).
    pub fn decode(stored: &str) -> Option<LessonProgress> {
        let parts: Vec<&str> = stored.split(' ').collect();
        let [version, lesson, prediction, loaded, done, seed, answers] = parts.as_slice() else {
            return None;
        };
        if *version != "v1" {
            return None;
        }
        let choice = |s: &str| -> Option<Option<usize>> {
            if s == "-" {
                Some(None)
            } else {
                s.parse().ok().map(Some)
            }
        };
        let lesson: usize = lesson.parse().ok()?;
        let mut quiz_answers = [None; QUESTIONS];
        let given: Vec<&str> = answers.split('.').collect();
        if given.len() != QUESTIONS {
            return None;
        }
        for (slot, answer) in quiz_answers.iter_mut().zip(given) {
            *slot = choice(answer)?;
        }
        Some(LessonProgress {
            lesson: lesson.min(LESSONS.len()),
            prediction: choice(prediction)?,
            loaded: *loaded == "1",
            done: done.parse().ok()?,
            quiz_seed: seed.parse().ok()?,
            quiz_answers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_round_trips_through_its_stored_form() {
        let progress = LessonProgress {
            lesson: 3,
            prediction: Some(1),
            loaded: true,
            done: 0b1011,
            quiz_seed: 7,
            quiz_answers: [Some(2), None, Some(0)],
        };
        assert_eq!(progress.encode(), "v1 3 1 1 11 7 2.-.0");
        assert_eq!(
            LessonProgress::decode(&progress.encode()),
            Some(progress.clone())
        );
        assert_eq!(progress.done_count(), 3);
        assert!(progress.is_done(3) && !progress.is_done(2));
        for bad in [
            "",
            "v0 3 1 1 11 7 2.-.0",
            "v1 3 x 1 11 7 2.-.0",
            "v1 3 1 1 11 7 2.-",
            "v1 3 1 1",
        ] {
            assert_eq!(LessonProgress::decode(bad), None, "{bad:?}");
        }
        let quiz = LessonProgress::decode("v1 999 - 0 0 0 -.-.-").unwrap();
        assert!(quiz.in_quiz());
        assert_eq!(quiz.lesson, LESSONS.len());
    }
}
