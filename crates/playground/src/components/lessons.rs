//! Lessons: pick a lesson, read the question, commit to a prediction, then see the engine's
//! answer for the scenario now in the editor and what it teaches.

use yew::prelude::*;

use crate::app::{Dispatch, Shared};
use crate::lessons::LESSONS;
use crate::state::{Action, LessonProgress};

/// Props of [`LessonsPanel`].
#[derive(Properties, PartialEq)]
pub struct LessonsProps {
    /// The analysis of the text in the editor.
    pub analysis: Shared,
    /// Progress.
    pub progress: LessonProgress,
    /// A re-simulation is pending (the answer waits for it).
    pub busy: bool,
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// The Lessons panel.
#[function_component(LessonsPanel)]
pub fn lessons_panel(props: &LessonsProps) -> Html {
    let index = props.progress.lesson;
    let lesson = &LESSONS[index.min(LESSONS.len() - 1)];
    let dispatch = props.dispatch.clone();
    let open = |i: usize| {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::OpenLesson(i)))
    };
    let answer = (lesson.answer)(&props.analysis.0);
    let predicted = props.progress.prediction;
    html! {
        <div class="lessons" id="lessons">
            <ol class="lesson-list">
                { for LESSONS.iter().enumerate().map(|(i, l)| html! {
                    <li><button class={classes!("link", (i == index).then_some("active"))} data-lesson={i.to_string()}
                        onclick={open(i)}>{ l.title }</button></li>
                }) }
            </ol>
            <h2>{ format!("Lesson {}: {}", index + 1, lesson.title) }</h2>
            <p class="muted">{ "Open the lesson to load its scenario into the editor, then predict." }</p>
            <button id="lesson-open" onclick={open(index)}>{ "Load this lesson's scenario" }</button>
            <p class="question" id="lesson-question">{ lesson.question }</p>
            <fieldset class="choices">
                <legend>{ "Your prediction" }</legend>
                { for lesson.choices.iter().enumerate().map(|(i, choice)| {
                    let dispatch = dispatch.clone();
                    let id = format!("choice-{i}");
                    html! {
                        <label for={id.clone()} class={classes!("choice",
                            (predicted.is_some() && answer == Some(i)).then_some("correct"),
                            (predicted == Some(i) && answer != Some(i)).then_some("wrong"))}>
                            <input type="radio" name="prediction" id={id} checked={predicted == Some(i)}
                                onchange={Callback::from(move |_| dispatch.dispatch(Action::Predict(i)))} />
                            { *choice }
                        </label>
                    }
                }) }
            </fieldset>
            if let Some(choice) = predicted {
                <div class="answer" id="lesson-answer" aria-live="polite">
                    if props.busy {
                        <p>{ "The engine is simulating…" }</p>
                    } else {
                        <p><strong>{ match answer {
                            Some(a) if a == choice => "Right. ".to_string(),
                            Some(a) => format!("The engine says: {} ", lesson.choices[a]),
                            None => "The scenario was changed; none of the choices matches the engine's result now. ".to_string(),
                        } }</strong>
                        { "(see the cluster and the Pending tray)" }</p>
                        <p>{ lesson.lesson }</p>
                    }
                </div>
            }
            if index + 1 < LESSONS.len() {
                <button id="lesson-next" onclick={open(index + 1)}>{ "Next lesson →" }</button>
            }
        </div>
    }
}
