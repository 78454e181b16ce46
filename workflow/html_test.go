package workflow

import "testing"

func TestTextToHTMLEscapes(t *testing.T) {
	t.Parallel()
	got := TextToHTML("Hi <script>alert(1)</script> & co\nline two\n\n\nSecond \"para\"")
	want := "<p>Hi &lt;script&gt;alert(1)&lt;/script&gt; &amp; co<br>\nline two</p>\n<p>Second &#34;para&#34;</p>\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
