//! App state and its reducer: a closed set of actions, no I/O (storage, URL and files are handled
//! at the edges in `app.rs`, which dispatches the results here).

use std::rc::Rc;

use spreadlab_engine::KubeVersion;

use yew::Reducible;

use crate::edit::{self, Field};
use crate::examples;
use crate::lessons::LESSONS;

/// The right-hand panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// Pending pod and node details, spread arithmetic, rule controls.
    Explain,
    /// Failures, rollout, capacity, tie-break risk, lint.
    WhatIf,
    /// The guided lessons.
    Lessons,
    /// The pinned baseline against the current scenario.
    Compare,
}

impl Panel {
    /// The panels in tab order.
    pub const ALL: [Panel; 4] = [
        Panel::Explain,
        Panel::WhatIf,
        Panel::Lessons,
        Panel::Compare,
    ];

    /// The next (`forward`) or previous tab, wrapping around (arrow keys in the tab list).
    pub fn step(self, forward: bool) -> Panel {
        let at = Panel::ALL.iter().position(|p| *p == self).unwrap_or(0);
        let len = Panel::ALL.len();
        Panel::ALL[if forward {
            (at + 1) % len
        } else {
            (at + len - 1) % len
        }]
    }
}

/// How a failed domain fails (the engine's `FailureMode`, mirrored for the UI state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailMode {
    /// Nodes deleted from the cluster.
    Removed,
    /// Nodes present but NotReady and tainted unreachable.
    Unreachable,
}

/// The analysis the What-if panel shows (only that one is computed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhatIfView {
    /// Fail a zone or node.
    Failure,
    /// The rollout timeline.
    Rollout,
    /// Capacity headroom.
    Capacity,
    /// Seeded tie-break risk.
    Risk,
    /// Lint findings.
    Lint,
}

/// What the user asked to fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailTarget {
    /// A zone.
    Zone(String),
    /// A node.
    Node(String),
}

pub use crate::lessons::progress::LessonProgress;

/// The whole UI state. The text is the source of truth for the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The editor's text.
    pub text: String,
    /// Bumped on every text change (debounce and persistence key on it).
    pub revision: u64,
    /// The example last loaded, if the text came from one.
    pub example: Option<&'static str>,
    /// Selected pod (`namespace/name`).
    pub selected_pod: Option<String>,
    /// Selected node.
    pub selected_node: Option<String>,
    /// Selected constraint (index into `edit::constraints(text)`).
    pub constraint: usize,
    /// The open panel.
    pub panel: Panel,
    /// The failure to analyse.
    pub fail: Option<FailTarget>,
    /// How it fails.
    pub fail_mode: FailMode,
    /// Rollout timeline position.
    pub rollout_step: usize,
    /// The What-if analysis on screen.
    pub whatif_view: WhatIfView,
    /// Lesson progress.
    pub lesson: LessonProgress,
    /// A message for the user (share link copied, import failed, ...).
    pub notice: Option<String>,
    /// The Kubernetes release whose kube-scheduler is mirrored (header selector, share link).
    pub version: KubeVersion,
    /// The scenario pinned for compare mode, and its release.
    pub baseline: Option<(String, KubeVersion)>,
    /// A big file being read in slices before it replaces the text (`app`'s import).
    pub import: Option<Import>,
    /// Imports started so far (each import's id).
    pub imports: u64,
}

/// A big file being read in slices (with a progress bar) before it replaces the text.
#[derive(Clone, Debug)]
pub struct Import {
    /// Which import this is (a newer one supersedes it).
    pub id: u64,
    /// The file's name.
    pub name: String,
    /// Its text.
    pub text: std::rc::Rc<String>,
}

impl PartialEq for Import {
    fn eq(&self, other: &Import) -> bool {
        self.id == other.id
    }
}

impl Default for State {
    fn default() -> State {
        let example = &examples::EXAMPLES[0];
        State {
            text: example.text(),
            revision: 0,
            example: Some(example.id),
            selected_pod: None,
            selected_node: None,
            constraint: 0,
            panel: Panel::Explain,
            fail: None,
            fail_mode: FailMode::Removed,
            rollout_step: 0,
            whatif_view: WhatIfView::Failure,
            lesson: LessonProgress::default(),
            notice: None,
            version: KubeVersion::DEFAULT,
            baseline: None,
            import: None,
            imports: 0,
        }
    }
}

/// Everything that changes the state.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The user typed or pasted: the selected constraint is kept only while it still exists.
    SetText(String),
    /// An import or a share link replaced the whole scenario: every selection referring to the
    /// old text (pod, node, constraint, failure, rollout step, example) is reset.
    ReplaceText(String),
    /// A simulation of the current text finished with these zones and nodes: a failure target
    /// or selected node that no longer exists is dropped.
    Simulated {
        /// Zone names.
        zones: Vec<String>,
        /// Node names.
        nodes: Vec<String>,
    },
    /// Load a built-in example by id.
    LoadExample(String),
    /// Select a pod (or clear).
    SelectPod(Option<String>),
    /// Select a node (or clear).
    SelectNode(Option<String>),
    /// A node card was clicked: selects it and opens Explain, or clears the selection when it is
    /// already selected and shown.
    ToggleNode(String),
    /// Select the constraint the controls edit.
    SelectConstraint(usize),
    /// Rewrite one field of the selected constraint (`None` removes it).
    SetField(Field, Option<String>),
    /// Rewrite the `index`-th `replicas:` line.
    SetReplicas(usize, i64),
    /// Write (or remove) the `strategy:` beside the `index`-th `replicas:` line.
    SetStrategy(usize, Option<String>),
    /// Open a panel.
    ShowPanel(Panel),
    /// Fail a zone or node (or stop failing); failing shows the failure analysis.
    Fail(Option<FailTarget>),
    /// Show one What-if analysis.
    ShowWhatIf(WhatIfView),
    /// Choose the failure mode.
    SetFailMode(FailMode),
    /// Move on the rollout timeline.
    RolloutStep(usize),
    /// Open a lesson (loads its scenario); `LESSONS.len()` opens the final quiz.
    OpenLesson(usize),
    /// The learner's prediction for the open lesson.
    Predict(usize),
    /// Lesson `index` is completed (predicted, and its change made).
    LessonDone(usize),
    /// An answer to the final quiz's `question` (the first one counts).
    QuizAnswer(usize, usize),
    /// A fresh quiz (the next seed), its answers cleared.
    NewQuiz,
    /// Show a notice (or clear it).
    Notice(Option<String>),
    /// A big file was read: it is parsed in slices, then replaces the text.
    Import {
        /// The file's name.
        name: String,
        /// Its text.
        text: std::rc::Rc<String>,
    },
    /// The import `id` ended (its text replaced the scenario, or it was abandoned).
    ImportEnded(u64),
    /// Mirror another Kubernetes release: the scenario is simulated again (a new revision).
    SetVersion(KubeVersion),
    /// Pin the current text and release as compare mode's baseline (`false`: unpin).
    PinBaseline(bool),
    /// Put the baseline back in the editor (and its release in the header).
    RestoreBaseline,
}

impl State {
    fn with_text(&mut self, text: String) {
        if text != self.text {
            self.text = text;
            self.revision += 1;
            // A big import still being read would replace this text when done: it is dropped
            // (its own end replaces the text this way too).
            self.import = None;
            // The constraint index must point at a constraint of the new text.
            if self.constraint != 0 && self.constraint >= edit::constraints(&self.text).len() {
                self.constraint = 0;
            }
        }
    }

    fn reset_selection(&mut self) {
        self.selected_pod = None;
        self.selected_node = None;
        self.constraint = 0;
        self.fail = None;
        self.rollout_step = 0;
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<State> {
        // A simulation that leaves every target in place changes nothing: same state, no render.
        if let Action::Simulated { zones, nodes } = &action {
            let gone_fail = self.fail.as_ref().is_some_and(|t| match t {
                FailTarget::Zone(zone) => !zones.contains(zone),
                FailTarget::Node(node) => !nodes.contains(node),
            });
            let gone_node = self
                .selected_node
                .as_ref()
                .is_some_and(|n| !nodes.contains(n));
            if !gone_fail && !gone_node {
                return self;
            }
        }
        let mut next = (*self).clone();
        match action {
            Action::SetText(text) => {
                if text != next.text {
                    next.example = None;
                }
                next.with_text(text);
            }
            Action::ReplaceText(text) => {
                if text != next.text {
                    next.example = None;
                    next.lesson.loaded = false;
                    next.lesson.prediction = None;
                    next.reset_selection();
                    next.with_text(text);
                }
            }
            Action::Simulated { zones, nodes } => {
                let exists = |target: &FailTarget| match target {
                    FailTarget::Zone(zone) => zones.contains(zone),
                    FailTarget::Node(node) => nodes.contains(node),
                };
                if next.fail.as_ref().is_some_and(|t| !exists(t)) {
                    next.fail = None;
                }
                if next
                    .selected_node
                    .as_ref()
                    .is_some_and(|n| !nodes.contains(n))
                {
                    next.selected_node = None;
                }
            }
            Action::LoadExample(id) => {
                if let Some(example) = examples::by_id(&id) {
                    next.with_text(example.text());
                    next.example = Some(example.id);
                    next.lesson.loaded = false;
                    next.lesson.prediction = None;
                    next.reset_selection();
                }
            }
            // A selection is only shown by the Explain panel: selecting from the cluster while
            // another panel is open switches to it (clearing a selection leaves the panel).
            Action::SelectPod(pod) => {
                if pod.is_some() {
                    next.panel = Panel::Explain;
                }
                next.selected_pod = pod;
            }
            Action::SelectNode(node) => {
                if node.is_some() {
                    next.panel = Panel::Explain;
                }
                next.selected_node = node;
            }
            Action::ToggleNode(node) => {
                if next.panel == Panel::Explain && next.selected_node.as_ref() == Some(&node) {
                    next.selected_node = None;
                } else {
                    next.selected_node = Some(node);
                    next.panel = Panel::Explain;
                }
            }
            Action::SelectConstraint(index) => next.constraint = index,
            Action::SetField(field, value) => {
                if let Some(text) =
                    edit::set_field(&next.text, next.constraint, field, value.as_deref())
                {
                    next.with_text(text);
                }
            }
            Action::SetReplicas(index, value) => {
                if let Some(text) = edit::set_replicas(&next.text, index, value.max(0)) {
                    next.with_text(text);
                }
            }
            Action::SetStrategy(index, value) => {
                if let Some(text) = edit::set_strategy(&next.text, index, value.as_deref()) {
                    next.with_text(text);
                }
            }
            Action::ShowPanel(panel) => next.panel = panel,
            Action::Fail(target) => {
                if target.is_some() {
                    next.whatif_view = WhatIfView::Failure;
                }
                next.fail = target;
            }
            Action::ShowWhatIf(view) => {
                next.whatif_view = view;
                next.panel = Panel::WhatIf;
            }
            Action::SetFailMode(mode) => next.fail_mode = mode,
            Action::RolloutStep(step) => next.rollout_step = step,
            Action::OpenLesson(index) => {
                if let Some(lesson) = LESSONS.get(index) {
                    next.lesson.lesson = index;
                    next.lesson.prediction = None;
                    next.lesson.loaded = true;
                    next.reset_selection();
                    next.with_text(lesson.text.to_string());
                    next.example = None;
                    next.panel = Panel::Lessons;
                } else if index == LESSONS.len() {
                    // The final quiz: its scenarios are generated, the editor keeps its text.
                    next.lesson.lesson = index;
                    next.lesson.prediction = None;
                    next.lesson.loaded = false;
                    next.panel = Panel::Lessons;
                }
            }
            Action::LessonDone(index) => {
                if index < LESSONS.len() {
                    next.lesson.done |= 1 << index;
                }
            }
            Action::QuizAnswer(question, choice) => {
                if let Some(slot) = next.lesson.quiz_answers.get_mut(question)
                    && slot.is_none()
                {
                    *slot = Some(choice);
                }
            }
            Action::NewQuiz => {
                next.lesson.quiz_seed = next.lesson.quiz_seed.wrapping_add(1);
                next.lesson.quiz_answers = Default::default();
            }
            // One prediction per lesson opening, and only about the lesson's scenario.
            Action::Predict(choice) => {
                let choices = LESSONS
                    .get(next.lesson.lesson)
                    .map_or(0, |l| l.choices.len());
                if next.lesson.prediction.is_none() && next.lesson.loaded && choice < choices {
                    next.lesson.prediction = Some(choice);
                }
            }
            Action::Notice(notice) => next.notice = notice,
            Action::Import { name, text } => {
                next.imports += 1;
                next.import = Some(Import {
                    id: next.imports,
                    name,
                    text,
                });
            }
            Action::ImportEnded(id) => {
                if next.import.as_ref().is_some_and(|i| i.id == id) {
                    next.import = None;
                }
            }
            Action::SetVersion(version) => {
                if version != next.version {
                    next.version = version;
                    next.revision += 1;
                }
            }
            Action::PinBaseline(pin) => {
                next.baseline = pin.then(|| (next.text.clone(), next.version));
                next.panel = Panel::Compare;
            }
            Action::RestoreBaseline => {
                if let Some((text, version)) = next.baseline.clone() {
                    next.reset_selection();
                    next.example = None;
                    if text != next.text {
                        next.lesson.loaded = false;
                        next.lesson.prediction = None;
                    }
                    next.with_text(text);
                    if version != next.version {
                        next.version = version;
                        next.revision += 1;
                    }
                }
            }
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(state: State, action: Action) -> State {
        (*Rc::new(state).reduce(action)).clone()
    }

    #[test]
    fn typing_bumps_the_revision_and_forgets_the_example() {
        let state = State::default();
        assert!(state.example.is_some());
        let typed = reduce(state.clone(), Action::SetText("x".into()));
        assert_eq!(typed.revision, 1);
        assert_eq!(typed.example, None);
        let same = reduce(typed.clone(), Action::SetText("x".into()));
        assert_eq!(same.revision, 1);
    }

    #[test]
    fn a_big_import_is_dropped_when_the_text_changes_first() {
        let text = std::rc::Rc::new(String::from("kind: List\n"));
        let state = reduce(
            State::default(),
            Action::Import {
                name: "big.yaml".into(),
                text: text.clone(),
            },
        );
        assert_eq!(state.import.as_ref().map(|i| i.id), Some(1));
        // Its end, or an older import's, leaves a newer one alone.
        let second = reduce(
            state.clone(),
            Action::Import {
                name: "b".into(),
                text,
            },
        );
        assert_eq!(reduce(second.clone(), Action::ImportEnded(1)), second);
        // A smaller file, an example or typing replaces the text first: the import is dropped.
        let loaded = reduce(state, Action::LoadExample("control-plane-only-zone".into()));
        assert_eq!(loaded.import, None);
    }

    #[test]
    fn loading_an_example_resets_selection() {
        let state = State {
            selected_pod: Some("default/a".into()),
            fail: Some(FailTarget::Zone("zone-a".into())),
            ..State::default()
        };
        let loaded = reduce(state, Action::LoadExample("control-plane-only-zone".into()));
        assert_eq!(loaded.example, Some("control-plane-only-zone"));
        assert_eq!(loaded.selected_pod, None);
        assert_eq!(loaded.fail, None);
        assert!(loaded.text.contains("kind: Deployment"));
        let unknown = reduce(loaded.clone(), Action::LoadExample("nope".into()));
        assert_eq!(unknown, loaded);
    }

    #[test]
    fn a_stale_constraint_index_is_reset_when_the_text_changes() {
        let state = reduce(
            State::default(),
            Action::LoadExample("min-domains-match-label-keys".into()),
        );
        let state = reduce(state, Action::SelectConstraint(1));
        // Typing that keeps both constraints keeps the index.
        let typed = reduce(
            state.clone(),
            Action::SetText(format!("{}# x\n", state.text)),
        );
        assert_eq!(typed.constraint, 1);
        // A text with one constraint: index 1 is gone.
        let one = reduce(
            typed,
            Action::SetText(examples::by_id("control-plane-only-zone").unwrap().text()),
        );
        assert_eq!(edit::constraints(&one.text).len(), 1);
        assert_eq!(one.constraint, 0);
    }

    #[test]
    fn an_import_or_link_resets_what_referred_to_the_old_text() {
        let state = State {
            selected_pod: Some("default/a".into()),
            selected_node: Some("n1".into()),
            constraint: 1,
            fail: Some(FailTarget::Zone("zone-a".into())),
            rollout_step: 3,
            ..State::default()
        };
        let replaced = reduce(state.clone(), Action::ReplaceText("kind: List\n".into()));
        assert_eq!(replaced.text, "kind: List\n");
        assert_eq!(replaced.example, None);
        assert_eq!(
            (
                replaced.selected_pod,
                replaced.selected_node,
                replaced.constraint,
                replaced.fail,
                replaced.rollout_step
            ),
            (None, None, 0, None, 0)
        );
        // The same text again changes nothing.
        let same = reduce(state.clone(), Action::ReplaceText(state.text.clone()));
        assert_eq!(same, state);
    }

    #[test]
    fn a_simulation_drops_failure_targets_and_nodes_that_are_gone() {
        let state = State {
            selected_node: Some("n1".into()),
            fail: Some(FailTarget::Node("n2".into())),
            ..State::default()
        };
        let kept = reduce(
            state.clone(),
            Action::Simulated {
                zones: vec!["zone-a".into()],
                nodes: vec!["n1".into(), "n2".into()],
            },
        );
        assert_eq!(kept, state);
        let shared = Rc::new(state.clone());
        let same = shared.clone().reduce(Action::Simulated {
            zones: vec!["zone-a".into()],
            nodes: vec!["n1".into(), "n2".into()],
        });
        assert!(Rc::ptr_eq(&shared, &same));
        let gone = reduce(
            state,
            Action::Simulated {
                zones: vec!["zone-a".into()],
                nodes: vec!["n3".into()],
            },
        );
        assert_eq!((gone.selected_node, gone.fail), (None, None));
        let zone = State {
            fail: Some(FailTarget::Zone("zone-b".into())),
            ..State::default()
        };
        let zone = reduce(
            zone,
            Action::Simulated {
                zones: vec!["zone-a".into()],
                nodes: vec![],
            },
        );
        assert_eq!(zone.fail, None);
    }

    #[test]
    fn failing_shows_the_failure_analysis() {
        let state = reduce(State::default(), Action::ShowWhatIf(WhatIfView::Lint));
        assert_eq!(
            (state.panel, state.whatif_view),
            (Panel::WhatIf, WhatIfView::Lint)
        );
        let failed = reduce(state, Action::Fail(Some(FailTarget::Zone("zone-a".into()))));
        assert_eq!(failed.whatif_view, WhatIfView::Failure);
        let cleared = reduce(
            State {
                whatif_view: WhatIfView::Rollout,
                ..failed
            },
            Action::Fail(None),
        );
        assert_eq!(cleared.whatif_view, WhatIfView::Rollout);
    }

    #[test]
    fn arrow_keys_step_through_the_tabs_and_wrap() {
        assert_eq!(Panel::Explain.step(true), Panel::WhatIf);
        assert_eq!(Panel::Lessons.step(true), Panel::Compare);
        assert_eq!(Panel::Compare.step(true), Panel::Explain);
        assert_eq!(Panel::Explain.step(false), Panel::Compare);
        assert_eq!(Panel::WhatIf.step(false), Panel::Explain);
    }

    #[test]
    fn controls_rewrite_the_text() {
        let state = reduce(
            State::default(),
            Action::LoadExample("min-domains-match-label-keys".into()),
        );
        let state = reduce(state, Action::SelectConstraint(1));
        let changed = reduce(
            state.clone(),
            Action::SetField(Field::MinDomains, Some("1".into())),
        );
        assert_eq!(changed.revision, state.revision + 1);
        let sites = edit::constraints(&changed.text);
        assert_eq!(sites[1].get(Field::MinDomains), Some("1"));
        assert_eq!(sites[0].get(Field::MinDomains), Some("2"));
        let scaled = reduce(changed, Action::SetReplicas(0, 6));
        assert_eq!(edit::replicas(&scaled.text)[0].value, 6);
        let recreate = reduce(
            scaled,
            Action::SetStrategy(0, Some("{type: Recreate}".into())),
        );
        assert_eq!(
            edit::strategy(&recreate.text, 0).as_deref(),
            Some("{type: Recreate}")
        );
    }

    #[test]
    fn selecting_a_pod_or_node_opens_the_explain_panel() {
        for panel in [Panel::WhatIf, Panel::Lessons, Panel::Explain] {
            let state = State {
                panel,
                ..State::default()
            };
            let pod = reduce(state.clone(), Action::SelectPod(Some("default/a".into())));
            assert_eq!(pod.panel, Panel::Explain);
            assert_eq!(pod.selected_pod.as_deref(), Some("default/a"));
            let node = reduce(state.clone(), Action::SelectNode(Some("n1".into())));
            assert_eq!(node.panel, Panel::Explain);
            assert_eq!(node.selected_node.as_deref(), Some("n1"));
            // Clearing a selection keeps the open panel.
            let cleared = reduce(state.clone(), Action::SelectNode(None));
            assert_eq!(cleared.panel, panel);
            let cleared = reduce(state, Action::SelectPod(None));
            assert_eq!(cleared.panel, panel);
        }
    }

    #[test]
    fn clicking_a_node_card_shows_it_before_it_toggles_it_off() {
        let state = State {
            panel: Panel::WhatIf,
            selected_node: Some("n1".into()),
            ..State::default()
        };
        // Selected but hidden behind What-if: the click shows it.
        let shown = reduce(state, Action::ToggleNode("n1".into()));
        assert_eq!(shown.panel, Panel::Explain);
        assert_eq!(shown.selected_node.as_deref(), Some("n1"));
        // Selected and shown: the click clears it.
        let cleared = reduce(shown.clone(), Action::ToggleNode("n1".into()));
        assert_eq!(cleared.selected_node, None);
        assert_eq!(cleared.panel, Panel::Explain);
        let other = reduce(shown, Action::ToggleNode("n2".into()));
        assert_eq!(other.selected_node.as_deref(), Some("n2"));
    }

    #[test]
    fn lessons_load_their_scenario_and_record_a_prediction() {
        let state = reduce(State::default(), Action::OpenLesson(0));
        assert_eq!(state.panel, Panel::Lessons);
        assert_eq!(state.text, LESSONS[0].text);
        assert!(state.lesson.loaded);
        let predicted = reduce(state, Action::Predict(1));
        assert_eq!(predicted.lesson.prediction, Some(1));
        // Locked once revealed.
        let again = reduce(predicted.clone(), Action::Predict(2));
        assert_eq!(again.lesson.prediction, Some(1));
        let next = reduce(predicted, Action::OpenLesson(1));
        assert_eq!(next.lesson.prediction, None);
        assert_eq!(next.text, LESSONS[1].text);
        // Previous loads lesson 0's scenario again.
        let previous = reduce(next, Action::OpenLesson(0));
        assert_eq!(previous.text, LESSONS[0].text);
        assert_eq!(previous.lesson.lesson, 0);
    }

    #[test]
    fn the_path_records_completed_lessons_and_the_quiz() {
        let state = reduce(State::default(), Action::LessonDone(2));
        let state = reduce(state, Action::LessonDone(2));
        let state = reduce(state, Action::LessonDone(LESSONS.len()));
        assert_eq!(state.lesson.done, 1 << 2);
        // Opening another lesson keeps what was completed.
        let state = reduce(state, Action::OpenLesson(5));
        assert!(state.lesson.is_done(2));
        // The quiz opens without replacing the editor's text.
        let quiz = reduce(state.clone(), Action::OpenLesson(LESSONS.len()));
        assert!(quiz.lesson.in_quiz());
        assert_eq!(quiz.text, state.text);
        let answered = reduce(quiz, Action::QuizAnswer(1, 2));
        let again = reduce(answered, Action::QuizAnswer(1, 0));
        assert_eq!(again.lesson.quiz_answers, [None, Some(2), None]);
        let fresh = reduce(again, Action::NewQuiz);
        assert_eq!(fresh.lesson.quiz_seed, 1);
        assert_eq!(fresh.lesson.quiz_answers, [None; 3]);
        assert!(fresh.lesson.is_done(2));
    }

    #[test]
    fn compare_pins_the_text_and_release_and_restores_them() {
        let pinned = reduce(State::default(), Action::PinBaseline(true));
        assert_eq!(pinned.panel, Panel::Compare);
        let baseline = (pinned.text.clone(), pinned.version);
        assert_eq!(pinned.baseline, Some(baseline.clone()));
        let edited = reduce(pinned, Action::SetText("kind: List\n".into()));
        let other = reduce(edited, Action::SetVersion(KubeVersion::V1_34));
        assert_eq!(other.baseline, Some(baseline.clone()));
        let restored = reduce(other.clone(), Action::RestoreBaseline);
        assert_eq!((restored.text.clone(), restored.version), baseline);
        assert!(restored.revision > other.revision);
        assert_eq!(reduce(restored, Action::PinBaseline(false)).baseline, None);
        // Restoring a baseline that is not the open lesson's scenario unloads the lesson.
        let lesson = reduce(State::default(), Action::OpenLesson(0));
        let lesson = reduce(lesson, Action::Predict(1));
        let pinned = reduce(lesson, Action::LoadExample("spread-three-zones".into()));
        let pinned = reduce(pinned, Action::PinBaseline(true));
        let back = reduce(pinned, Action::OpenLesson(0));
        assert!(back.lesson.loaded);
        let restored = reduce(back, Action::RestoreBaseline);
        assert!(!restored.lesson.loaded);
        assert_eq!(restored.lesson.prediction, None);
    }

    #[test]
    fn no_prediction_before_the_lesson_scenario_is_loaded() {
        let state = reduce(State::default(), Action::ShowPanel(Panel::Lessons));
        assert!(!state.lesson.loaded);
        let predicted = reduce(state, Action::Predict(0));
        assert_eq!(predicted.lesson.prediction, None);
        // Out-of-range choices are ignored too.
        let opened = reduce(predicted, Action::OpenLesson(0));
        let out = reduce(opened.clone(), Action::Predict(99));
        assert_eq!(out.lesson.prediction, None);
        // An example replaces the lesson's scenario: the lesson is no longer loaded.
        let example = reduce(opened, Action::LoadExample("spread-three-zones".into()));
        assert!(!example.lesson.loaded);
    }
}
