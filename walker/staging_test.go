package walker

import "testing"

func TestIsStagingName(t *testing.T) {
	for name, want := range map[string]bool{
		".turnback-0123456789ab-0":   true,
		".turnback-0123456789ab-17":  true,
		".turnback-0123456789ab-l3":  true,
		".turnback-0123456789ab-o42": true,
		".turnback-0123456789ab-":    false,
		".turnback-0123456789ab-x1":  false,
		".turnback-0123456789AB-1":   false,
		".turnback-notes":            false,
		".turnback-0123456789ab-1a":  false,
		"turnback-0123456789ab-1":    false,
		".turnbackignore":            false,
	} {
		if got := isStagingName(name); got != want {
			t.Errorf("isStagingName(%q) = %v, want %v", name, got, want)
		}
	}
}
