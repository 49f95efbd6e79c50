"""Views of a run's recorded events (gpusim/timing/events.py): a Perfetto / Chrome trace (`trace`) and
an animated playback in the browser (`animate`). Rendering only; the recording is in the timing core."""
