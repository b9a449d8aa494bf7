package testtier

import "testing"

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		val  string
		want bool
	}{
		{"", false},
		{"0", false},
		{"1", true},
		{"yes", true},
	} {
		t.Setenv(Env, c.val)
		if got := Enabled(); got != c.want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Env, c.val, got, c.want)
		}
	}
}

func TestSlowSkips(t *testing.T) {
	t.Setenv(Env, "")
	ran := false
	t.Run("gated", func(t *testing.T) {
		Slow(t)
		ran = true
	})
	if ran {
		t.Fatal("Slow did not skip with the slow tier off")
	}
	t.Setenv(Env, "1")
	t.Run("runs", func(t *testing.T) {
		Slow(t)
		ran = true
	})
	if !ran {
		t.Fatal("Slow skipped with the slow tier on")
	}
}

func TestShort(t *testing.T) {
	t.Setenv(Env, "")
	if !Short() {
		t.Error("Short() = false with the slow tier off")
	}
	t.Setenv(Env, "1")
	if Short() != testing.Short() {
		t.Errorf("Short() = %v with the slow tier on, want testing.Short() = %v", Short(), testing.Short())
	}
}
