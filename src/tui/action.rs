//! Everything the user can do, as data: keys and the mouse map to an [`Action`], and
//! [`super::model::App::apply`] carries it out.

/// A user action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave (writing accepted golden changes first).
    Quit,
    /// Select the next step.
    NextStep,
    /// Select the previous step.
    PrevStep,
    /// A page of steps down.
    PageSteps,
    /// A page of steps up.
    PageStepsBack,
    /// Select the first step.
    FirstStep,
    /// Select the last step.
    LastStep,
    /// Select the next step that diverges.
    NextDivergence,
    /// Select the previous step that diverges.
    PrevDivergence,
    /// Select the first step that diverges.
    FirstDivergence,
    /// `n`/`N` stop at steps that only follow an earlier divergence too, or no longer.
    ToggleConsequences,
    /// Scroll the diff to its next change.
    NextChange,
    /// Scroll the diff to its previous change.
    PrevChange,
    /// Expand the folded unchanged run in view (or fold back the expanded one).
    ToggleFold,
    /// Enlarge the detail pane to the whole screen, or back.
    ToggleZoom,
    /// Scroll the detail pane down a line.
    ScrollDown,
    /// Scroll the detail pane up a line.
    ScrollUp,
    /// Scroll the detail pane down a page.
    PageDown,
    /// Scroll the detail pane up a page.
    PageUp,
    /// Scroll the detail pane left.
    ScrollLeft,
    /// Scroll the detail pane right.
    ScrollRight,
    /// Unified ⇄ side-by-side diff.
    ToggleLayout,
    /// Compare the next pair of results.
    CyclePair,
    /// Show the diff tab.
    ShowDiff,
    /// Show the results tab.
    ShowResults,
    /// Show the memory folder tab.
    ShowTree,
    /// Show the input tab.
    ShowInput,
    /// Cycle the tabs.
    NextTab,
    /// Open the search prompt.
    StartSearch,
    /// Select the next step matching the search.
    NextMatch,
    /// Select the previous step matching the search.
    PrevMatch,
    /// Forget the search.
    ClearSearch,
    /// Run the search typed in the prompt.
    SubmitSearch,
    /// Close the prompt without searching.
    CancelSearch,
    /// Delete the last character of the prompt.
    SearchBackspace,
    /// Open or close the help overlay.
    ToggleHelp,
    /// Turn mouse capture on or off.
    ToggleMouse,
    /// Review: take the backend's new answer into the golden file.
    Accept,
    /// Review: keep the recorded answer.
    Reject,
    /// Review: decide later.
    Skip,
    /// Review: accept every remaining change.
    AcceptAll,
    /// Review: write the golden file now.
    Save,
}
