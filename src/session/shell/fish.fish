# shotty shell integration for fish: OSC 133 marks around the prompt and each command.
# Run with --init-command after the user's configuration.
if not functions -q __shotty_user_prompt
    functions -c fish_prompt __shotty_user_prompt
    function fish_prompt
        printf '\e]133;A\a'
        __shotty_user_prompt
        printf '\e]133;B\a'
    end
end
function __shotty_preexec --on-event fish_preexec
    printf '\e]133;C\a'
end
function __shotty_postexec --on-event fish_postexec
    printf '\e]133;D;%s\a' $status
end
